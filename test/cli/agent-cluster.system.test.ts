/**
 * Acceptance test of `fdkit agent` (docs/design.md, "Command line"): five agent processes on loopback, started
 * from the build (`npm test` builds before vitest runs), with the default `lan` profile.
 *
 * - They form a cluster, and survive garbage datagrams and stream connections without a single event.
 * - A `kill -STOP` of one for 3 s brings no `dead` event (a suspicion, if any, is refuted).
 * - A `kill -9` of another is reported `dead` by the four others within 2 s: its host's kernel closes
 *   the connections its watchers hold, and refuses theirs (`src/swim/death-watch.ts`); far within the
 *   `lan` bound that `expectedTiming` gives for five members (`worstCaseAllKnowMs`), which covers a
 *   crashed host. Each survivor suspects it first.
 * - A SIGTERM of a third is reported `left` by every remaining agent, and the agent exits 0.
 * - Every stdout line is a JSON event line with exactly the keys of docs/design.md; stderr is pino JSON.
 * - A port in use and a bad --bind give a message and a non-zero exit; a usage mistake exits 2.
 *
 * These are real processes on a real clock: waits are bounded polls with deadlines, and the only timing
 * asserted is the contract bound (plus a stated slack).
 */
import { spawn } from 'node:child_process';
import dgram from 'node:dgram';
import { existsSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lan } from '../../src/swim/profiles.js';
import { expectedTiming } from '../../src/swim/timing.js';
import {
  type Datagram,
  GHOST,
  garbageDatagrams,
  garbageStreams,
  type StreamOutcome,
  sendDatagrams,
  sendStreamProbe,
  undecodable,
  XorShift32,
} from './agent-garbage.js';
import {
  type AgentProcess,
  BIN,
  converged,
  describeAgents,
  freePort,
  killAll,
  type Received,
  sleep,
  startCluster,
  waitUntil,
} from './agent-process.js';

const NAMES = ['a0', 'a1', 'a2', 'a3', 'a4'];
const KILLED = 'a4';
const PAUSED = 'a3';
const TERMINATED = 'a2';
const PAUSE_MS = 3000;
const GARBAGE_SEED = 0x5eed_f00d;

const TIMING = expectedTiming(lan, NAMES.length);
/** The contract: every member holds a crashed member dead within this (32.8 s for lan at n = 5). */
const DETECTION_BOUND_MS = TIMING.worstCaseAllKnowMs;
/** A process killed on a live host is held dead everywhere within 2 s (the death watch's goal). */
const KILL_BOUND_MS = 2000;
/**
 * Slack on top of the bound for what the model leaves out: five Node.js processes' timers firing late
 * on a loaded machine (vitest runs other CPU-bound suites in parallel on CI's two cores), event-loop
 * delays in the agents and in this test, and the stdout pipe between them. A second covers several
 * probe periods' worth of such delays; the model's own margins (the 10^-6 probing tail, the full
 * unconfirmed suspicion timeout) are already inside the bound.
 */
const SCHEDULING_SLACK_MS = 1000;
/** Quiet time after the garbage: three probe periods, in which every member is probed about three times. */
const GARBAGE_QUIET_MS = 3 * lan.probeIntervalMs;
/** A graceful leave waits at most the node's leaveTimeoutMs (5 s by default), then shuts down. */
const LEAVE_EXIT_MS = 5000 + 2000;

function fmt(ms: number): string {
  return `${Math.round(ms)} ms`;
}

function lines(events: readonly Received[]): string {
  return events.map((e) => JSON.stringify(e.line)).join('\n');
}

/** Runs the agent with `args` to its end (bounded), as a child of this process. */
function runAgent(
  args: readonly string[],
  timeoutMs = 10_000,
): Promise<{ status: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'agent', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      stdout += s;
    });
    child.stderr.setEncoding('utf8').on('data', (s: string) => {
      stderr += s;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stdout, stderr });
    });
  });
}

describe('fdkit agent: start-up mistakes', () => {
  it('has been built (npm test builds before it runs vitest)', () => {
    expect(existsSync(BIN)).toBe(true);
  });

  it.each([
    ['UDP', 'udp4'],
    ['TCP', 'tcp'],
  ] as const)('exits non-zero with a message when the port is in use over %s', async (protocol, kind) => {
    let port: number;
    let release: () => Promise<void>;
    if (kind === 'udp4') {
      const socket = dgram.createSocket('udp4');
      await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
      port = socket.address().port;
      release = () => new Promise((resolve) => socket.close(() => resolve()));
    } else {
      const server = net.createServer();
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
      release = () => new Promise((resolve) => server.close(() => resolve()));
    }
    try {
      const result = await runAgent(['--name', 'x', '--bind', `127.0.0.1:${port}`]);
      expect(result.signal).toBeNull();
      expect(result.status).not.toBe(0);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(`cannot bind 127.0.0.1:${port} (${protocol})`);
      expect(result.stderr).toContain('already in use');
      expect(result.stderr).not.toMatch(/\n\s+at /);
    } finally {
      await release();
    }
  });

  it.each([
    ['nonsense', 'the port is missing'],
    ['127.0.0.1:99999', 'the port must be an integer from 1 to 65535'],
    ['[::1', 'no closing bracket'],
    // TEST-NET-1 (RFC 5737): never an address of this machine.
    ['192.0.2.1:7946', 'not an address of this machine'],
  ])('exits non-zero with a message for --bind %s', async (bind, message) => {
    const result = await runAgent(['--name', 'x', '--bind', bind]);
    expect(result.signal).toBeNull();
    expect(result.status).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^fdkit agent: /);
    expect(result.stderr).toContain(bind);
    expect(result.stderr).toContain(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('exits 2 with the usage when --name is missing', async () => {
    const port = await freePort();
    const result = await runAgent(['--bind', `127.0.0.1:${port}`]);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('--name');
    expect(result.stderr).toContain('Usage: fdkit');
  });
});

describe('fdkit agent: five processes on loopback', () => {
  let agents: AgentProcess[] = [];
  const agent = (name: string): AgentProcess => {
    const found = agents.find((a) => a.name === name);
    if (found === undefined) throw new Error(`no agent ${name} (did the cluster start?)`);
    return found;
  };
  const running = (): AgentProcess[] => agents.filter((a) => a.running);
  /** Every `dead` line about a member other than the one killed with -9. */
  const falseDeaths = (): string[] =>
    agents.flatMap((a) =>
      a.events
        .filter((e) => e.line.event === 'dead' && e.line.member !== KILLED)
        .map((e) => JSON.stringify(e.line)),
    );
  let started = 0;

  beforeAll(async () => {
    started = performance.now();
    agents = await startCluster(NAMES, { args: ['--log-level', 'warn'] });
    console.log(
      `cluster formed in ${fmt(performance.now() - started)}: ${agents.map((a) => a.address).join(' ')}`,
    );
  }, 60_000);

  afterAll(async () => {
    await killAll(agents);
    console.log(`five-agent scenario: ${fmt(performance.now() - started)} of wall time`);
  }, 20_000);

  it('forms a cluster: every agent reports the four others alive', () => {
    expect(converged(agents), describeAgents(agents)).toBe(true);
    for (const a of agents) {
      for (const b of agents) if (a !== b) expect(a.first(b.name, 'alive')?.line.cause).toBe('joined');
      expect(a.events.filter((e) => e.line.event !== 'alive')).toEqual([]);
    }
  });

  it('survives garbage datagrams and streams: no event, every agent running, every member alive', async () => {
    const rng = new XorShift32(GARBAGE_SEED);
    const garbageStart = performance.now();
    // Crafted up front, in agent order, so that the seed alone decides every byte.
    const plans = agents.map((a) => ({
      a,
      datagrams: garbageDatagrams(rng, a.name),
      probes: garbageStreams(rng),
    }));
    for (const { datagrams } of plans) expect(undecodable(datagrams)).toBe(true);
    const sent: { name: string; datagrams: Datagram[]; streams: StreamOutcome[] }[] = await Promise.all(
      plans.map(async ({ a, datagrams, probes }) => {
        await sendDatagrams(a.port, datagrams);
        const streams = await Promise.all(probes.map((p) => sendStreamProbe(a.port, p, 3000)));
        return { name: a.name, datagrams, streams };
      }),
    );
    for (const { name, datagrams, streams } of sent) {
      const counts = new Map<string, number>();
      for (const d of datagrams) counts.set(d.kind, (counts.get(d.kind) ?? 0) + 1);
      console.log(
        `garbage to ${name}: ${datagrams.length} datagrams (${[...counts].map(([k, n]) => `${n} ${k}`).join(', ')}); ` +
          `streams: ${streams.map((s) => `${s.label} → ${s.outcome} in ${s.ms} ms`).join('; ')}`,
      );
      // Each connection is ended or reset by the member itself, not left hanging: the one held open
      // after a 0xffffffff prefix too, which only the member can close.
      for (const s of streams)
        expect(['reset', 'ended', 'closed'], `${name}: ${s.label}`).toContain(s.outcome);
    }
    await sleep(GARBAGE_QUIET_MS);
    expect(
      agents.every((a) => a.running),
      describeAgents(agents),
    ).toBe(true);
    const since = agents.flatMap((a) => a.events.filter((e) => e.at >= garbageStart));
    expect(lines(since), 'events after the garbage').toBe('');
    expect(agents.flatMap((a) => a.about(GHOST))).toEqual([]);
    expect(converged(agents), describeAgents(agents)).toBe(true);
  }, 30_000);

  // The pause comes before the crash, so that it meets healthy members whose probe timeouts are not
  // stretched by Lifeguard: a 2 s pause is then usually suspected, and refutation is what is tested.
  it(`refutes a ${PAUSE_MS} ms SIGSTOP with no dead event`, async () => {
    const paused = agent(PAUSED);
    const observers = running().filter((a) => a !== paused);
    expect(observers).toHaveLength(4);
    const stopAt = performance.now();
    paused.signal('SIGSTOP');
    await sleep(PAUSE_MS);
    paused.signal('SIGCONT');
    const contAt = performance.now();
    // Settled: every observer holds it alive again (never suspected, or suspected and refuted, so that no
    // suspicion timer is left to expire), it holds every observer alive, and at least the minimum
    // suspicion timeout has passed since it resumed, for any late suspicion to show. The deadline is the
    // longest suspicion timeout: past it, an unrefuted suspicion would have become a death.
    const settled = await waitUntil(
      () =>
        performance.now() - contAt >= TIMING.suspicionMinMs &&
        observers.every((o) => o.stateOf(PAUSED) === 'alive' && paused.stateOf(o.name) === 'alive'),
      TIMING.suspicionMaxMs + SCHEDULING_SLACK_MS,
    );
    const aboutPaused = observers.flatMap((o) => o.about(PAUSED, stopAt));
    const suspected = aboutPaused.filter((e) => e.line.event === 'suspect');
    const refuted = aboutPaused.filter((e) => e.line.event === 'alive' && e.line.cause === 'refuted');
    const pausedSaw = paused.events.filter((e) => e.at >= stopAt);
    console.log(
      `SIGSTOP ${PAUSED} for ${PAUSE_MS} ms: settled ${fmt(performance.now() - contAt)} after SIGCONT; ` +
        `${suspected.length} suspect and ${refuted.length} refuted line(s) about it` +
        (aboutPaused.length > 0 ? `:\n${lines(aboutPaused)}` : '') +
        (pausedSaw.length > 0 ? `\nlines of ${PAUSED} itself after the pause:\n${lines(pausedSaw)}` : ''),
    );
    expect(
      agents.flatMap((a) =>
        a.about(PAUSED).filter((e) => e.line.event === 'dead' || e.line.event === 'left'),
      ),
    ).toEqual([]);
    expect(falseDeaths()).toEqual([]);
    expect(settled, describeAgents(running())).toBe(true);
    expect(paused.running).toBe(true);
    // Whoever suspected it saw it refute, at a higher incarnation than the one suspected.
    for (const o of observers) {
      const suspect = o.first(PAUSED, 'suspect', stopAt);
      if (suspect === undefined) continue;
      const later = o.events.slice(o.events.indexOf(suspect) + 1);
      const refute = later.find((e) => e.line.member === PAUSED && e.line.event === 'alive');
      expect(refute?.line.cause, `${o.name}:\n${lines(o.about(PAUSED))}`).toBe('refuted');
      expect(refute!.line.incarnation).toBeGreaterThan(suspect.line.incarnation);
    }
  }, 60_000);

  it(`reports a kill -9 dead at the four others within ${KILL_BOUND_MS} ms (+ ${SCHEDULING_SLACK_MS} ms of slack)`, async () => {
    const killed = agent(KILLED);
    const survivors = running().filter((a) => a !== killed);
    expect(survivors).toHaveLength(4);
    const killAt = performance.now();
    const killWall = Date.now();
    killed.signal('SIGKILL');
    const allDead = await waitUntil(
      () => survivors.every((s) => s.first(KILLED, 'dead', killAt) !== undefined),
      DETECTION_BOUND_MS + SCHEDULING_SLACK_MS + 3000,
    );
    const suspects = survivors.map((s) => s.first(KILLED, 'suspect', killAt));
    const deads = survivors.map((s) => s.first(KILLED, 'dead', killAt));
    const deadAts = deads.flatMap((d) => (d === undefined ? [] : [d.at - killAt]));
    const suspectAts = suspects.flatMap((d) => (d === undefined ? [] : [d.at - killAt]));
    const allKnowMs = Math.max(...deadAts);
    const allKnowWallMs = Math.max(...deads.flatMap((d) => (d === undefined ? [] : [d.line.t - killWall])));
    console.log(
      `kill -9 ${KILLED}: first suspect ${fmt(Math.min(...suspectAts))}, first dead ${fmt(Math.min(...deadAts))}, ` +
        `all four dead ${fmt(allKnowMs)} (by the agents' own timestamps ${fmt(allKnowWallMs)}); ` +
        `bound ${KILL_BOUND_MS} ms + slack ${SCHEDULING_SLACK_MS} ms; ` +
        `causes ${deads.map((d, i) => `${survivors[i]!.name}:${d?.line.cause}`).join(' ')}`,
    );
    expect(allDead, describeAgents(agents)).toBe(true);
    expect(allKnowMs).toBeLessThanOrEqual(KILL_BOUND_MS + SCHEDULING_SLACK_MS);
    survivors.forEach((s, i) => {
      const suspect = suspects[i];
      const dead = deads[i]!;
      expect(suspect, `${s.name} never suspected ${KILLED}:\n${lines(s.about(KILLED))}`).toBeDefined();
      expect(s.events.indexOf(suspect!)).toBeLessThan(s.events.indexOf(dead));
      expect(s.stateOf(KILLED)).toBe('dead');
    });
    expect(agents.flatMap((a) => a.about(KILLED).filter((e) => e.line.event === 'left'))).toEqual([]);
    await waitUntil(() => killed.closed, 5000);
    expect(killed.exit?.signal).toBe('SIGKILL');
  }, 60_000);

  it('reports a SIGTERM left at every remaining agent, never dead, and the agent exits 0', async () => {
    const terminated = agent(TERMINATED);
    const remaining = running().filter((a) => a !== terminated);
    expect(remaining).toHaveLength(3);
    const termAt = performance.now();
    terminated.signal('SIGTERM');
    const done = await waitUntil(
      () => terminated.closed && remaining.every((r) => r.first(TERMINATED, 'left', termAt) !== undefined),
      LEAVE_EXIT_MS + 3000,
    );
    const exitMs = terminated.exit === undefined ? Number.NaN : terminated.exit.at - termAt;
    const leftMs = remaining.map((r) => (r.first(TERMINATED, 'left', termAt)?.at ?? Number.NaN) - termAt);
    console.log(
      `SIGTERM ${TERMINATED}: exit ${terminated.exit?.code} after ${fmt(exitMs)}; ` +
        `left at ${remaining.map((r, i) => `${r.name} ${fmt(leftMs[i]!)}`).join(', ')}`,
    );
    expect(done, describeAgents(agents)).toBe(true);
    expect(terminated.exit?.code).toBe(0);
    expect(terminated.exit?.signal).toBeNull();
    expect(exitMs).toBeLessThanOrEqual(LEAVE_EXIT_MS);
    for (const r of remaining) expect(r.first(TERMINATED, 'left', termAt)?.line.cause).toBe('left');
    // A member that left is not probed: no death may follow the leave.
    await sleep(2 * lan.probeIntervalMs);
    expect(agents.flatMap((a) => a.about(TERMINATED).filter((e) => e.line.event === 'dead'))).toEqual([]);
    for (const r of remaining) expect(r.stateOf(TERMINATED)).toBe('left');
    expect(converged(remaining), describeAgents(remaining)).toBe(true);
    expect(falseDeaths()).toEqual([]);
  }, 30_000);

  it('printed only event lines on stdout, each JSON with exactly t, node, event, member, incarnation, cause', async () => {
    // Kill the rest, and read their output to the end.
    await killAll(agents);
    expect(agents.every((a) => a.closed)).toBe(true);
    for (const a of agents) {
      expect(a.badLines, a.name).toEqual([]);
      expect(a.events.length).toBeGreaterThan(0);
      // Logs are pino JSON on stderr; nothing reached error level, and no handler threw on garbage.
      const logs = a.stderrLines.map((l) => {
        try {
          return JSON.parse(l) as { level?: unknown; msg?: unknown };
        } catch {
          return { level: undefined, msg: l };
        }
      });
      expect(
        logs.filter((l) => typeof l.level !== 'number'),
        `${a.name}: stderr lines that are not pino JSON`,
      ).toEqual([]);
      expect(logs.filter((l) => (l.level as number) >= 50)).toEqual([]);
      expect(logs.filter((l) => String(l.msg).includes('threw'))).toEqual([]);
    }
    const counts = agents.map((a) => `${a.name} ${a.events.length} lines, ${a.stderrLines.length} log lines`);
    console.log(`stdout/stderr: ${counts.join('; ')}`);
  });
});
