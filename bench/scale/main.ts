/**
 * `npm run bench:scale` (under `flock /tmp/fdkit-heavy.lock`): 100 `fdkit agent` processes on loopback,
 * with the `lan` profile. They must form a cluster within the bound derived in scale-checks.ts, then
 * idle while every member's CPU time and RSS are read from /proc (bench/peers/proc.ts), then survive 10
 * SIGSTOP pauses and 10 SIGKILLs with no death but the killed members', every kill known by every live
 * member within 2 s (the death watch: docs/membership.md). The same idle measure runs first at 20
 * members, with the same tool, so that the cost per member at both sizes sits side by side. Writes
 * bench/results/scale.json and scale.md; exits 1, saying why, when a check fails.
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { AgentProcess, converged, freePort, killAll, waitUntil } from '../../test/cli/agent-process.js';
import { cpuPercent, type ProcSample, readProc } from '../peers/proc.js';
import { falseDeaths } from '../soak/checks.js';
import type { Fault } from '../soak/schedule.js';
import { benchFlags, numberFlag } from '../support/flags.js';
import { machine, progress, sleep } from '../support/report.js';
import { quantile, round } from '../support/stats.js';
import { convergedAt, convergenceBound, killKnown, type SeenEvent } from './scale-checks.js';
import { type IdleCost, type ScaleRun, writeScaleResults } from './scale-report.js';

const USAGE = `usage: flock /tmp/fdkit-heavy.lock npm run bench:scale -- [--members N] [--small N] [--idle-s S]
  --members N   the large cluster (default 100)
  --small N     the cluster measured first, for comparison (default 20)
  --idle-s S    idle window over which CPU and RSS are read (default 30)`;

const flags = benchFlags('bench/scale/main.ts', USAGE, process.argv.slice(2), {
  members: { kind: 'integer', min: 12, max: 200 },
  small: { kind: 'integer', min: 4, max: 100 },
  'idle-s': { kind: 'number', min: 5, max: 600 },
});
const large = numberFlag(flags, 'members', 100);
const small = numberFlag(flags, 'small', 20);
const idleMs = numberFlag(flags, 'idle-s', 30) * 1000;

/** Bytes of one alive statement in a gossip packet, with names like `m042` on loopback (measured). */
const ALIVE_BYTES = 30;
/** Every kill must be known by every live member within this (the issue). */
const KILL_KNOWN_MS = 2000;
const PAUSE_MS = 3000;
const FAULTS = 10;
/** Settling after convergence before the idle window, and after the faults before the checks. */
const SETTLE_MS = 10_000;
/** How long the cluster may take to start and converge at all before the bench gives up. */
const FORM_TIMEOUT_MS = 240_000;

/** A started cluster and when its members started and joined (bench ms). */
interface Formed {
  readonly agents: AgentProcess[];
  readonly startedAtMs: number;
  readonly lastJoinedAtMs: number;
  readonly convergedAtMs: number;
}

function events(agents: readonly AgentProcess[]): SeenEvent[] {
  return agents.flatMap((a) =>
    a.events.map((e) => ({ observer: a.name, member: e.line.member, event: e.line.event, atMs: e.at })),
  );
}

/** Starts `n` agents on loopback, all joining the first, and waits for convergence. */
async function form(n: number): Promise<Formed> {
  const names = Array.from({ length: n }, (_, i) => `m${String(i).padStart(3, '0')}`);
  const ports = new Set<number>();
  for (let i = 0; i < n; i++) ports.add(await freePort(ports));
  const list = [...ports];
  const startedAtMs = performance.now();
  const first = new AgentProcess(names[0]!, list[0]!, ['--log-level', 'info']);
  await waitUntil(() => !first.running || first.listening, 30_000, 50);
  const agents = [first];
  const joinedAt = new Map<string, number>([[first.name, performance.now()]]);
  for (let i = 1; i < n; i++) {
    agents.push(
      new AgentProcess(names[i]!, list[i]!, ['--join', first.address, '--retry-join', '--log-level', 'info']),
    );
  }
  let lastReport = performance.now();
  const formed = await waitUntil(
    () => {
      for (const a of agents) {
        if (!joinedAt.has(a.name) && a.stderrLines.some((l) => l.includes('"msg":"joined"'))) {
          joinedAt.set(a.name, performance.now());
        }
      }
      if (performance.now() - lastReport > 5000) {
        lastReport = performance.now();
        const views = agents.map(
          (a) => agents.filter((b) => b !== a && a.stateOf(b.name) === 'alive').length,
        );
        progress(
          `  n=${n}: ${joinedAt.size} joined, fewest alive in a view ${Math.min(...views)} of ${n - 1}, load ${loadavg()[0]!.toFixed(2)}`,
        );
      }
      return converged(agents) || agents.some((a) => !a.running);
    },
    FORM_TIMEOUT_MS,
    50,
  );
  if (!formed || !converged(agents)) {
    const down = agents.filter((a) => !a.running).map((a) => a.describe());
    await killAll(agents);
    throw new Error(
      `${n} agents did not converge within ${FORM_TIMEOUT_MS} ms\n${down.slice(0, 5).join('\n')}`,
    );
  }
  const at = convergedAt(events(agents), names);
  return {
    agents,
    startedAtMs,
    lastJoinedAtMs: Math.max(...joinedAt.values()),
    convergedAtMs: at ?? performance.now(),
  };
}

function spreadOf(xs: readonly number[]): { median: number; p90: number; max: number } {
  return {
    median: round(quantile(xs, 0.5), 3),
    p90: round(quantile(xs, 0.9), 3),
    max: round(Math.max(...xs), 3),
  };
}

/** CPU share of one core and RSS of every agent over `ms` of idling. */
async function idleCost(agents: readonly AgentProcess[], ms: number): Promise<IdleCost> {
  const read = (): (ProcSample | undefined)[] => agents.map((a) => readProc(a.child.pid!, performance.now()));
  const before = read();
  await sleep(ms);
  const after = read();
  const cpu: number[] = [];
  const rss: number[] = [];
  for (const [i, a] of before.entries()) {
    const b = after[i];
    if (a === undefined || b === undefined) continue;
    cpu.push(cpuPercent(a, b));
    rss.push(b.rssBytes / 2 ** 20);
  }
  return {
    members: agents.length,
    cpuPercent: spreadOf(cpu),
    rssMiB: spreadOf(rss),
    load1: round(loadavg()[0]!, 2),
  };
}

async function main(): Promise<number> {
  const failures: string[] = [];
  const idle: IdleCost[] = [];
  progress(
    `scale: ${small} members first, then ${large}; load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const s = await form(small);
  let smallFormMs: ScaleRun['smallFormMs'];
  try {
    smallFormMs = {
      startToConverged: Math.round(s.convergedAtMs - s.startedAtMs),
      lastJoinToConverged: Math.round(s.convergedAtMs - s.lastJoinedAtMs),
    };
    progress(
      `scale: ${small} converged ${(smallFormMs.startToConverged / 1000).toFixed(1)} s after the start; idling`,
    );
    await sleep(SETTLE_MS);
    idle.push(await idleCost(s.agents, idleMs));
  } finally {
    await killAll(s.agents);
  }
  await sleep(5000);
  const bound = convergenceBound({}, large, ALIVE_BYTES);
  const f = await form(large);
  const agents = f.agents;
  try {
    const formMs = {
      startToConverged: Math.round(f.convergedAtMs - f.startedAtMs),
      lastJoinToConverged: Math.round(f.convergedAtMs - f.lastJoinedAtMs),
      startToLastJoin: Math.round(f.lastJoinedAtMs - f.startedAtMs),
    };
    progress(
      `scale: ${large} converged ${(formMs.startToConverged / 1000).toFixed(1)} s after the start, ` +
        `${(formMs.lastJoinToConverged / 1000).toFixed(1)} s after the last join (bound ${(bound.boundMs / 1000).toFixed(1)} s); idling`,
    );
    if (formMs.lastJoinToConverged > bound.boundMs) {
      failures.push(
        `converged ${formMs.lastJoinToConverged} ms after the last join, beyond the bound of ${bound.boundMs} ms`,
      );
    }
    await sleep(SETTLE_MS);
    idle.push(await idleCost(agents, idleMs));
    progress(`scale: idle cost ${JSON.stringify(idle)}`);
    // Faults: every 8 s one member paused for 3 s, and 4 s later another killed; never the seed, never
    // a member twice. Kills fall while nobody is paused, so that every live member can hear of them.
    const t0 = performance.now();
    const faults: Fault[] = [];
    const kills: { member: string; atMs: number }[] = [];
    for (let i = 0; i < FAULTS; i++) {
      const paused = agents[1 + 2 * i]!;
      const killed = agents[2 + 2 * i]!;
      const pauseAt = performance.now();
      paused.signal('SIGSTOP');
      progress(`  pause ${paused.name}`);
      await sleep(PAUSE_MS);
      paused.signal('SIGCONT');
      faults.push({
        kind: 'pause',
        member: paused.name,
        startMs: pauseAt - t0,
        endMs: performance.now() - t0,
      });
      await sleep(1000);
      const killAt = performance.now();
      killed.signal('SIGKILL');
      progress(`  kill ${killed.name}`);
      kills.push({ member: killed.name, atMs: killAt });
      faults.push({
        kind: 'kill',
        member: killed.name,
        startMs: killAt - t0,
        endMs: Number.POSITIVE_INFINITY,
      });
      await sleep(4000);
    }
    await sleep(SETTLE_MS);
    const seen = events(agents);
    const killedNames = new Set(kills.map((k) => k.member));
    const live = agents.filter((a) => !killedNames.has(a.name)).map((a) => a.name);
    const known = kills.map((k) => killKnown(seen, k.member, k.atMs, live));
    for (const k of known) {
      if (k.allKnowMs === null)
        failures.push(`kill of ${k.member}: ${k.unaware.length} live members never reported it`);
      else if (k.allKnowMs > KILL_KNOWN_MS)
        failures.push(
          `kill of ${k.member} known by all after ${Math.round(k.allKnowMs)} ms, beyond ${KILL_KNOWN_MS} ms`,
        );
    }
    // Pauses explain no death: only the kills are faults that may.
    const deaths = seen
      .filter((e) => e.event === 'dead' && e.atMs >= t0)
      .map((e) => ({ ...e, atMs: e.atMs - t0 }));
    const wrongDeaths = falseDeaths(
      deaths,
      faults.filter((x) => x.kind === 'kill'),
      0,
    );
    for (const d of wrongDeaths) failures.push(`${d.observer} declared ${d.member} dead: ${d.why}`);
    for (const a of agents) {
      if (!killedNames.has(a.name) && !a.running)
        failures.push(`${a.name} exited: ${a.stderrLines.slice(-2).join(' | ')}`);
    }
    const run: ScaleRun = {
      large,
      idleMs,
      bound,
      formMs,
      smallFormMs,
      idle,
      faults,
      kills: known.map((k) => ({
        ...k,
        killedAtMs: Math.round(k.killedAtMs - t0),
        allKnowMs: k.allKnowMs === null ? null : Math.round(k.allKnowMs),
      })),
      wrongDeaths,
      failures,
      machine: machine(),
      load: loadavg(),
    };
    progress(`scale: results in ${writeScaleResults(run)}`);
  } finally {
    await killAll(agents);
  }
  if (failures.length > 0) {
    progress(`scale FAILED:\n  ${failures.join('\n  ')}`);
    return 1;
  }
  progress('scale passed');
  return 0;
}

process.exitCode = await main();
