/**
 * A mixed cluster in processes (issue 20): three Go memberlist 0.2.2 agents (test/wire/memberlist/go-agent)
 * under DefaultLANConfig and two `fdkit agent --wire memberlist` under fdkit's `lan` profile, on 127.0.0.1.
 *
 * - They converge: every member holds every other alive.
 * - A 3 s SIGSTOP of either kind is not declared dead by anyone.
 * - A kill -9 of a Go member (twice) is held dead by every other member, Go and fdkit, no sooner than a
 *   probe timeout.
 * - A kill -9 of an fdkit member is held dead by every Go member and by the other fdkit member, which
 *   suspects it on the kernel's evidence (its death watch, or its probe's refused connection: fdkit's
 *   additions, among the fdkit members only). With two
 *   fdkit members there is one watcher, and one refusal does not convict; with a third fdkit member, the two
 *   others hold a killed one dead within 2 s on the kernel's evidence (refused watches or probe
 *   connections, forwarded between them), before any Go member does.
 * - A new member joins every member at once (one push-pull each), so that no test waits on the gossip of a
 *   join, which may miss a member at five.
 * - A Go member's Leave is held `left` by everyone, and so is an fdkit member's graceful leave (SIGTERM).
 * - No Go agent logged a message it could not read.
 *
 * The bounds come from the configurations: `expectedTiming(lan, 5)` for fdkit observers,
 * `expectedTiming(memberlistLan, 5)` (memberlist's DefaultLANConfig, value for value) for Go observers,
 * plus the scheduling slack of test/cli/agent-cluster.system.test.ts. One cluster serves the whole file;
 * each killed member is replaced by a new one (a new name, so that no test depends on how either kind
 * takes back a name it held dead) before the next test. Needs dist/ (`npm run build`).
 */
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lan, memberlistLan } from '../../../src/swim/profiles.js';
import { expectedTiming } from '../../../src/swim/timing.js';
import { sleep, waitUntil } from '../../cli/agent-process.js';
import { buildGoAgent } from './go-agent.js';
import {
  allHoldAliveNow,
  converged,
  describeMembers,
  FdkitMember,
  GoMember,
  type MixedMember,
  startFdkit,
  startGo,
} from './mixed-members.js';

const N = 5;
/** fdkit's observers' contract. */
const FD = expectedTiming(lan, N);
/** memberlist's: probe 1 s, suspicion 4 × max(1, log10 5) = 4 s, up to 6 × that unconfirmed. */
const ML = expectedTiming(memberlistLan, N);
/** Timers firing late on a loaded two-core machine, and the stdout pipes (as agent-cluster's). */
const SLACK_MS = 1000;
const PAUSE_MS = 3000;
/** The death watch's goal: a process killed on a live host is held dead by its watchers within 2 s. */
const WATCH_BOUND_MS = 2000;
/** fdkit's graceful leave waits at most its leaveTimeoutMs (5 s), then shuts down. */
const LEAVE_EXIT_MS = 5000 + 2000;
/** A leave is known everywhere by the next push-pull at the latest (30 s for both at five members). */
const LEAVE_KNOWN_MS = Math.max(ML.pushPullIntervalMs, FD.pushPullIntervalMs) + SLACK_MS;

/** memberlist's log lines about bytes it could not read or accept (net.go, state.go, security.go). */
const UNREADABLE =
  /invalid msgType|Failed to decode|Failed to decompress|not supported|too short|invalid checksum|truncated|Decrypt|Failed to read remote state|Failed push\/pull merge|Failed to receive|failed to receive|Vsn|protocol version|unknown|unexpected node/i;

const fmt = (ms: number): string => `${Math.round(ms)} ms`;

interface Detection {
  readonly observer: MixedMember['kind'];
  readonly victim: MixedMember['kind'];
  readonly ms: number;
}
const detections: Detection[] = [];

function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

function detectionTable(): string {
  const kinds = ['fdkit', 'go'] as const;
  const rows = kinds.flatMap((observer) =>
    kinds.map((victim) => {
      const ms = detections.filter((d) => d.observer === observer && d.victim === victim).map((d) => d.ms);
      const cell = ms.length === 0 ? '-' : `${fmt(median(ms))} (n=${ms.length}, ${ms.map(fmt).join(', ')})`;
      return `  ${observer.padEnd(8)} ${victim.padEnd(8)} ${cell}`;
    }),
  );
  return ['kill -9 detection, median:', '  observer victim', ...rows].join('\n');
}

describe('mixed cluster: 3 Go memberlist agents and 2 fdkit agents (--wire memberlist)', () => {
  /** Every member started, the dead and departed ones too. */
  const everyone: MixedMember[] = [];
  /** The members of the cluster now. */
  let cluster: MixedMember[] = [];
  const named = (name: string): MixedMember => {
    const m = cluster.find((x) => x.name === name);
    if (m === undefined) throw new Error(`no member ${name} (did the cluster start?)`);
    return m;
  };
  const falseDepartures = (since: number, except: readonly string[] = []): string[] =>
    everyone.flatMap((o) =>
      everyone
        .filter((v) => v !== o && !except.includes(v.name))
        .flatMap((v) => {
          const d = o.departure(v.name, since);
          return d === undefined ? [] : [`${o.name} holds ${v.name} ${d.state} (${d.cause ?? 'go'})`];
        }),
    );
  let convergeMs = Number.NaN;
  let sinceLastStartMs = Number.NaN;

  const add = <M extends MixedMember>(m: M): M => {
    everyone.push(m);
    cluster.push(m);
    return m;
  };

  /**
   * The addresses of the cluster's members, which a new member joins all at once: a push-pull with each
   * tells every one of them at once, where the gossip of one join may miss a member at five (each
   * statement goes out a fixed number of times, to random members).
   */
  const everyAddress = (): string => cluster.map((m) => m.address).join(',');

  /** Waits, bounded, until the cluster holds its new member alive everywhere. */
  const rejoined = async (): Promise<number> => {
    const from = performance.now();
    const ok = await waitUntil(() => converged(cluster), ML.disseminationMs + FD.disseminationMs + 5000);
    expect(ok, describeMembers(cluster)).toBe(true);
    return performance.now() - from;
  };

  beforeAll(async () => {
    buildGoAgent();
    const started = performance.now();
    const seed = add(await startGo({ name: 'g0' }));
    add(await startGo({ name: 'g1', join: [seed.address] }));
    add(await startGo({ name: 'g2', join: [seed.address] }));
    add(await startFdkit('f0', seed.address));
    add(await startFdkit('f1', seed.address));
    const lastStart = performance.now();
    const ok = await waitUntil(() => converged(cluster), 15_000);
    if (!ok) throw new Error(`the mixed cluster did not form:\n${describeMembers(cluster)}`);
    convergeMs = performance.now() - started;
    sinceLastStartMs = performance.now() - lastStart;
  }, 120_000);

  afterAll(async () => {
    await Promise.all(everyone.map((m) => m.kill()));
    console.log(detectionTable());
  }, 30_000);

  it('converges: every member holds the four others alive', async () => {
    console.log(
      `converged ${fmt(convergeMs)} after the first start, ${fmt(sinceLastStartMs)} after the last; ` +
        `bound ${fmt(Math.max(ML.disseminationMs, FD.disseminationMs))} + ${fmt(SLACK_MS)}: ` +
        cluster.map((m) => `${m.kind} ${m.name} ${m.address}`).join(', '),
    );
    expect(converged(cluster), describeMembers(cluster)).toBe(true);
    // A joiner learns everyone from its seed's push-pull; the others learn of it by gossip.
    expect(sinceLastStartMs).toBeLessThanOrEqual(Math.max(ML.disseminationMs, FD.disseminationMs) + SLACK_MS);
    // And the Go members list the fdkit members as live memberlist nodes, not just as events.
    expect(await allHoldAliveNow(cluster, ['f0', 'f1', 'g0', 'g1', 'g2'], 2000)).toBe(true);
  });

  it.each(['g1', 'f1'])(
    `survives a ${PAUSE_MS} ms SIGSTOP of %s: nobody declares it dead`,
    async (name) => {
      const paused = named(name);
      const stopAt = performance.now();
      paused.signal('SIGSTOP');
      await sleep(PAUSE_MS);
      paused.signal('SIGCONT');
      const contAt = performance.now();
      // A suspicion raised before or just after the resume ends, at the soonest, one minimum suspicion
      // timeout later: wait that long, then until every member holds every other alive now (refuted).
      await sleep(Math.max(ML.suspicionMinMs, FD.suspicionMinMs));
      const names = cluster.map((m) => m.name);
      const settled = await allHoldAliveNow(cluster, names, Math.max(ML.suspicionMaxMs, FD.suspicionMaxMs));
      const settledMs = performance.now() - contAt;
      const suspicions = cluster.flatMap((o) => o.suspicions(stopAt));
      console.log(
        `SIGSTOP ${paused.kind} ${name} ${PAUSE_MS} ms: all alive again ${fmt(settledMs)} after SIGCONT; ` +
          `${suspicions.length} suspicion(s)${suspicions.length > 0 ? `:\n  ${suspicions.join('\n  ')}` : ''}`,
      );
      expect(falseDepartures(stopAt)).toEqual([]);
      expect(settled, describeMembers(cluster)).toBe(true);
      expect(paused.running).toBe(true);
    },
    60_000,
  );

  /** Kills `victim` -9, waits until every other member holds it dead, checks, records, and replaces it. */
  const killAndWatch = async (victimName: string, replacement?: () => Promise<MixedMember>) => {
    const victim = named(victimName);
    const observers = cluster.filter((m) => m !== victim);
    const killAt = performance.now();
    victim.signal('SIGKILL');
    const bound = (o: MixedMember): number =>
      (o.kind === 'go' ? ML.worstCaseAllKnowMs : FD.worstCaseAllKnowMs) + SLACK_MS;
    const all = await waitUntil(
      () => observers.every((o) => o.departure(victimName, killAt) !== undefined),
      Math.max(...observers.map(bound)),
    );
    const seen = observers.map((o) => ({
      o,
      d: o.departure(victimName, killAt),
      s: o.firstSuspicion(victimName, killAt),
    }));
    const since = (at: number | undefined): string => (at === undefined ? '-' : fmt(at - killAt));
    console.log(
      `kill -9 ${victim.kind} ${victimName} (first suspicion / ${'dead'}):\n` +
        seen
          .map(
            ({ o, d, s }) =>
              `  ${o.kind} ${o.name}: ${since(s?.at)}${s?.cause === undefined ? '' : ` (${s.cause})`} / ` +
              `${d?.state ?? 'never'} ${since(d?.at)}${d?.cause === undefined ? '' : ` (${d.cause})`}`,
          )
          .join('\n') +
        `\n  bounds: fdkit ${fmt(FD.worstCaseAllKnowMs)}, go ${fmt(ML.worstCaseAllKnowMs)} (+ ${fmt(SLACK_MS)})`,
    );
    expect(all, describeMembers(everyone)).toBe(true);
    for (const { o, d } of seen) {
      expect(d?.state, `${o.name} about ${victimName}`).toBe('dead');
      detections.push({ observer: o.kind, victim: victim.kind, ms: d!.at - killAt });
      expect(d!.at - killAt).toBeLessThanOrEqual(bound(o));
    }
    expect(falseDepartures(killAt, [victimName])).toEqual([]);
    cluster = observers;
    if (replacement !== undefined) {
      add(await replacement());
      const back = await rejoined();
      console.log(`replacement ${cluster.at(-1)!.name} held alive everywhere ${fmt(back)} after it started`);
    }
    return { killAt, seen };
  };

  /**
   * Nobody can know of a Go member's kill sooner than a probe sent after it went unanswered: fdkit's
   * probe timeout (200 ms) is the shortest; a Go member needs its own 500 ms and a suspicion, or gossip.
   */
  const killGo = async (victim: string, replacement: string) => {
    const { killAt, seen } = await killAndWatch(victim, () =>
      startGo({ name: replacement, join: cluster.map((m) => m.address) }),
    );
    for (const { o, d } of seen) expect(d!.at - killAt, o.name).toBeGreaterThanOrEqual(lan.probeTimeoutMs);
  };

  it('holds a kill -9 of a Go member dead everywhere, at fdkit and Go members alike', async () => {
    await killGo('g2', 'g3');
  }, 90_000);

  it('holds a kill -9 of an fdkit member dead at every Go member and at the other fdkit member', async () => {
    // The death watch's ring takes only members known to speak fdkit: f0 and f1 watch each other.
    const { killAt, seen } = await killAndWatch('f1', () => startFdkit('f2', everyAddress()));
    const fdkit = seen.filter(({ o }) => o.kind === 'fdkit');
    const go = seen.filter(({ o }) => o.kind === 'go');
    expect(fdkit.map(({ o }) => o.name)).toEqual(['f0']);
    expect(go).toHaveLength(3);
    // f0 suspects f1 on the kernel's evidence, fdkit's addition: its watch ended and its next connection
    // was refused (usually within milliseconds), or, with no watch open at that moment, its probe's
    // connection was. One refusal does not convict: the death then comes at memberlist's pace.
    const suspicion = fdkit[0]!.s;
    expect(suspicion, 'f0 never suspected f1').toBeDefined();
    expect(suspicion!.cause).toBe('connection-refused');
    console.log(`f0 suspected f1 ${fmt(suspicion!.at - killAt)} after the kill`);
  }, 90_000);

  it('holds a kill -9 of another Go member dead everywhere', async () => {
    await killGo('g1', 'g4');
  }, 90_000);

  it('with three fdkit members, a killed one is held dead by the other two within 2 s, before any Go member', async () => {
    // A third fdkit member for this test: each fdkit member then has two fdkit watchers, whose two
    // refusals convict (with two fdkit members there is one watcher, which suspects at once, as above,
    // but one refusal does not convict: the death then goes at memberlist's pace).
    add(await startFdkit('f3', everyAddress()));
    await rejoined();
    // The ring is recomputed each probe period while which members speak fdkit is being learnt.
    await sleep(2 * lan.probeIntervalMs);
    const { killAt, seen } = await killAndWatch('f3');
    const watchers = seen.filter(({ o }) => o.kind === 'fdkit');
    const go = seen.filter(({ o }) => o.kind === 'go');
    expect(watchers.map(({ o }) => o.name).sort()).toEqual(['f0', 'f2']);
    // Kernel evidence convicts it among the fdkit members: their watches (or their probes' connections)
    // were refused, two refusals end the suspicion a probe timeout later, and a refusal bound for a Go
    // member is forwarded to the fdkit ones. The Go members learn the death from their gossip, or reach it
    // on their own (within memberlist's bound, checked above).
    console.log(
      `fdkit watchers' first suspicions: ${watchers.map(({ o, s }) => `${o.name} ${s?.cause}`).join(', ')}`,
    );
    for (const { o, d } of watchers) {
      expect(d!.at - killAt, o.name).toBeLessThanOrEqual(WATCH_BOUND_MS + SLACK_MS);
    }
    const firstFdkit = Math.min(...watchers.map(({ d }) => d!.at));
    for (const { o, d } of go) expect(firstFdkit, `an fdkit member before ${o.name}`).toBeLessThan(d!.at);
  }, 90_000);

  it("holds a Go member's Leave as left everywhere, never dead", async () => {
    const leaver = named('g3');
    if (!(leaver instanceof GoMember)) throw new Error('g3 is not a Go member');
    const others = cluster.filter((m) => m !== leaver);
    const leaveAt = performance.now();
    await leaver.agent.leave();
    // Gossip usually brings a leave in a few rounds; a member every retransmission missed learns it at
    // the next push-pull, the anti-entropy bound.
    const bound = LEAVE_KNOWN_MS;
    const all = await waitUntil(() => others.every((o) => o.departure('g3', leaveAt) !== undefined), bound);
    const seen = others.map((o) => ({ o, d: o.departure('g3', leaveAt) }));
    console.log(
      `Go Leave of g3: ${seen.map(({ o, d }) => `${o.name} ${d?.state ?? 'nothing'} ${d === undefined ? '' : fmt(d.at - leaveAt)}${d?.cause === undefined ? '' : ` (${d.cause})`}`).join(', ')}`,
    );
    expect(all, describeMembers(cluster)).toBe(true);
    for (const { o, d } of seen) {
      expect(d?.state, o.name).toBe('left');
      if (o.kind === 'fdkit') expect(d?.cause).toBe('left');
    }
    // A member that left is not probed: no death follows the leave.
    await sleep(2 * memberlistLan.probeIntervalMs);
    expect(falseDepartures(leaveAt, ['g3'])).toEqual([]);
    for (const o of others) expect(o.held('g3'), o.name).toBe('left');
    cluster = others;
  }, 60_000);

  it("holds an fdkit member's graceful leave (SIGTERM) as left everywhere; the agent exits 0", async () => {
    const leaver = named('f2');
    if (!(leaver instanceof FdkitMember)) throw new Error('f2 is not an fdkit member');
    const others = cluster.filter((m) => m !== leaver);
    const termAt = performance.now();
    leaver.signal('SIGTERM');
    const all = await waitUntil(
      () => leaver.agent.closed && others.every((o) => o.departure('f2', termAt) !== undefined),
      Math.max(LEAVE_EXIT_MS, LEAVE_KNOWN_MS) + SLACK_MS,
    );
    expect(leaver.agent.exit === undefined ? Number.NaN : leaver.agent.exit.at - termAt).toBeLessThanOrEqual(
      LEAVE_EXIT_MS + SLACK_MS,
    );
    const seen = others.map((o) => ({ o, d: o.departure('f2', termAt) }));
    const exit = leaver.agent.exit;
    console.log(
      `SIGTERM of f2: exit ${exit?.code} after ${exit === undefined ? '?' : fmt(exit.at - termAt)}; ` +
        seen
          .map(
            ({ o, d }) => `${o.name} ${d?.state ?? 'nothing'} ${d === undefined ? '' : fmt(d.at - termAt)}`,
          )
          .join(', '),
    );
    expect(all, describeMembers(everyone)).toBe(true);
    expect(exit?.code).toBe(0);
    for (const { o, d } of seen) {
      expect(d?.state, o.name).toBe('left');
      if (o.kind === 'fdkit') expect(d?.cause).toBe('left');
    }
    await sleep(2 * memberlistLan.probeIntervalMs);
    expect(falseDepartures(termAt, ['f2', 'g3'])).toEqual([]);
    for (const o of others) expect(o.held('f2'), o.name).toBe('left');
    cluster = others;
  }, 60_000);

  it('left no line in any Go log about a message it could not read, and no fdkit error', async () => {
    // End every member first, so that their output is read to the end.
    await Promise.all(everyone.map((m) => m.kill()));
    const goLines = everyone.flatMap((m) =>
      m instanceof GoMember ? m.agent.stderrLines.map((line) => ({ by: m.name, line })) : [],
    );
    const flagged = goLines
      .filter(({ line }) => /invalid msgType|Failed to decode|unknown|\[ERR\]|\[WARN\]/i.test(line))
      .map(({ by, line }) => `${by}: ${line}`);
    const unreadable = flagged.filter((l) => UNREADABLE.test(l));
    // The rest must come from the faults this file made: lines that name or address a member it killed,
    // paused or that left, or lines of a paused member itself (refuting what was said while it slept).
    const faulted = ['g1', 'g2', 'g3', 'f1', 'f2', 'f3'];
    const paused = ['g1'];
    const addresses = everyone.filter((m) => faulted.includes(m.name)).map((m) => m.address);
    const unexplained = flagged.filter(
      (l) =>
        !unreadable.includes(l) &&
        !paused.some((n) => l.startsWith(`${n}: `)) &&
        !faulted.some((n) => l.includes(` ${n} `) || l.includes(`'${n}'`) || l.includes(`: ${n})`)) &&
        !addresses.some((a) => l.includes(a)),
    );
    console.log(
      `Go stderr: ${goLines.length} lines, ${flagged.length} flagged` +
        (flagged.length > 0 ? `:\n  ${flagged.join('\n  ')}` : ''),
    );
    const fdkitErrors = everyone.flatMap((m) =>
      m instanceof FdkitMember
        ? m.agent.stderrLines.filter((l) => !/"level":(10|20|30|40)\b/.test(l)).map((l) => `${m.name}: ${l}`)
        : [],
    );
    const fdkitWarnings = everyone.flatMap((m) =>
      m instanceof FdkitMember ? m.agent.stderrLines.map((l) => `${m.name}: ${l}`) : [],
    );
    console.log(
      `fdkit stderr: ${fdkitWarnings.length} lines` +
        (fdkitWarnings.length > 0 ? `:\n  ${fdkitWarnings.join('\n  ')}` : ''),
    );
    expect(unreadable).toEqual([]);
    expect(unexplained).toEqual([]);
    expect(fdkitErrors).toEqual([]);
    for (const m of everyone) {
      if (m instanceof FdkitMember) expect(m.agent.badLines, m.name).toEqual([]);
      if (m instanceof GoMember) expect(m.agent.badLines, m.name).toEqual([]);
    }
  }, 30_000);
});
