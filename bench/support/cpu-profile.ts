/**
 * Summary of a V8 CPU profile (the `.cpuprofile` JSON that `--cpu-prof` and `Profiler.stop` write): where
 * the samples fell, by function (self and inclusive time) and by origin (fdkit's compiled modules, each
 * dependency, Node's internals, the garbage collector, native code).
 */

export interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}

interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
}

/** The fields of a `.cpuprofile` this summary reads. */
export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface FunctionTime {
  readonly function: string;
  readonly origin: string;
  readonly ms: number;
  /** Share of the busy (non-idle) time. */
  readonly share: number;
}

export interface ProfileSummary {
  readonly wallMs: number;
  readonly busyMs: number;
  /** Time left out by the `exclude` filter (the bench's own instrumentation). */
  readonly excludedMs: number;
  readonly samples: number;
  /** Busy time by origin, largest first. */
  readonly byOrigin: readonly { readonly origin: string; readonly ms: number; readonly share: number }[];
  readonly topSelf: readonly FunctionTime[];
  /** Inclusive time of fdkit's own functions (time in them and in everything they call). */
  readonly topInclusiveFdkit: readonly FunctionTime[];
}

/** Where a frame's code comes from, for grouping. */
export function originOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (url === '') {
    if (functionName === '(garbage collector)') return 'gc';
    if (functionName === '(idle)') return 'idle';
    if (functionName === '(program)') return 'native (program)';
    if (functionName === '(root)') return 'root';
    return 'native';
  }
  const dist = url.lastIndexOf('/dist/');
  if (dist >= 0) return `fdkit ${url.slice(dist + 6).replace(/\.js$/, '')}`;
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) return url.slice(modules + 14).split('/')[0]!;
  if (url.startsWith('node:')) return url.replace(/^node:internal\//, 'node:');
  return url.slice(url.lastIndexOf('/') + 1);
}

function label(frame: CallFrame): string {
  return `${frame.functionName === '' ? '(anonymous)' : frame.functionName}:${frame.lineNumber + 1}`;
}

/**
 * Summarizes `profile`; `top` limits the function lists. Samples whose stack holds a frame for which
 * `exclude` returns true are left out (and their time reported as `excludedMs`).
 */
export function summarizeProfile(
  profile: CpuProfile,
  top = 15,
  exclude: (frame: CallFrame) => boolean = () => false,
): ProfileSummary {
  const byId = new Map<number, ProfileNode>();
  for (const n of profile.nodes) byId.set(n.id, n);
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const excluded = new Map<number, boolean>();
  const isExcluded = (id: number): boolean => {
    let known = excluded.get(id);
    if (known === undefined) {
      const up = parent.get(id);
      known = exclude(byId.get(id)!.callFrame) || (up !== undefined && isExcluded(up));
      excluded.set(id, known);
    }
    return known;
  };
  const selfUs = new Map<number, number>();
  let excludedUs = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    // timeDeltas[i] is the time before sample i; attribute the interval that ends at the next sample.
    const dt = Math.max(0, profile.timeDeltas[i + 1] ?? 0);
    if (isExcluded(id)) excludedUs += dt;
    else selfUs.set(id, (selfUs.get(id) ?? 0) + dt);
  }
  let idleUs = 0;
  let totalUs = 0;
  const origin = new Map<string, number>();
  const selfByFunction = new Map<string, { frame: CallFrame; us: number }>();
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)!.callFrame;
    const o = originOf(frame);
    totalUs += us;
    if (o === 'idle') {
      idleUs += us;
      continue;
    }
    origin.set(o, (origin.get(o) ?? 0) + us);
    const key = `${o}\u0000${label(frame)}`;
    const entry = selfByFunction.get(key);
    if (entry === undefined) selfByFunction.set(key, { frame, us });
    else entry.us += us;
  }
  const busyUs = totalUs - idleUs;

  // Inclusive time: each node's self time plus its descendants', counted once per function per stack.
  const inclusive = new Map<string, { frame: CallFrame; us: number }>();
  for (const [id, us] of selfUs) {
    if (originOf(byId.get(id)!.callFrame) === 'idle') continue;
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame;
      const o = originOf(frame);
      if (!o.startsWith('fdkit ')) continue;
      const key = `${o}\u0000${label(frame)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const entry = inclusive.get(key);
      if (entry === undefined) inclusive.set(key, { frame, us });
      else entry.us += us;
    }
  }

  const share = (us: number): number => (busyUs === 0 ? 0 : Math.round((us / busyUs) * 1000) / 1000);
  const ms = (us: number): number => Math.round(us / 10) / 100;
  const list = (m: Map<string, { frame: CallFrame; us: number }>): FunctionTime[] =>
    [...m.values()]
      .sort((a, b) => b.us - a.us)
      .slice(0, top)
      .map((e) => ({
        function: label(e.frame),
        origin: originOf(e.frame),
        ms: ms(e.us),
        share: share(e.us),
      }));
  return {
    wallMs: ms(profile.endTime - profile.startTime),
    busyMs: ms(busyUs),
    excludedMs: ms(excludedUs),
    samples: profile.samples.length,
    byOrigin: [...origin.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([o, us]) => ({ origin: o, ms: ms(us), share: share(us) })),
    topSelf: list(selfByFunction),
    topInclusiveFdkit: list(inclusive),
  };
}
