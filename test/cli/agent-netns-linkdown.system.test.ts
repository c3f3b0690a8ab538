/**
 * A host crash on real processes (issue 19): five `fdkit agent`s (default `lan` profile), each in its own
 * network namespace on one bridge (examples/support/netns.ts), and one host's link taken down inside its
 * namespace (`ip link set eth0 down`). Unlike `kill -9`, this leaves no kernel evidence: no connection is
 * closed or refused, the host just goes silent, as when its power or its NIC fails. So the death watch
 * cannot help: the probes find it silent, and the suspicion ends on that silence (`hostSilenceMs`).
 *
 * - Every survivor holds it dead within the bound `expectedTiming(lan, 5).hostCrashAllKnowMs`, and none
 *   before the floor the configuration implies (a probe timeout, then the host-silence window or
 *   Lifeguard's shortest suspicion, whichever is shorter); no survivor suspects it before a probe of it
 *   could have failed.
 * - No survivor declares another survivor dead, then or after.
 * - Once the link is up again, the victim refutes its death: every survivor holds it alive within a bound
 *   derived from the configuration, and every view is whole again within the longest suspicion.
 *
 * Times are taken around the `ip` command (the link goes down between the two readings) and when the test
 * reads an event line, after the agent printed it: so "not before" is measured from the reading before
 * the command, "within" from the one after, and the reading delay can only delay events, never advance
 * them. Needs root, `ip` and `nft`; fails (not skips) without them. About 6 s.
 */
import { performance } from 'node:perf_hooks';
import { afterAll, describe, expect, it } from 'vitest';
import { LossNetwork, listNamespaces, requirePrerequisites } from '../../examples/support/netns.js';
import { lan } from '../../src/swim/profiles.js';
import { expectedTiming } from '../../src/swim/timing.js';
import {
  type AgentProcess,
  converged,
  describeAgents,
  killAll,
  type Received,
  startCluster,
  stderrBeyondWarnings,
  waitUntil,
} from './agent-process.js';

const NAMES = ['n0', 'n1', 'n2', 'n3', 'n4'];
/** Not the seed: every other agent joined through n0, and the victim should be an ordinary member. */
const VICTIM_INDEX = 4;
const VICTIM = NAMES[VICTIM_INDEX]!;
/** Every namespace has its own ports: one fixed port serves all five, and nobody else can hold it. */
const PORT = 7946;

const TIMING = expectedTiming(lan, NAMES.length);
/** The contract: every member holds a crashed host dead within this (9.8 s for lan at n = 5: 8 probe periods, the 1 s window, 4 gossip rounds). */
const DETECTION_BOUND_MS = TIMING.hostCrashAllKnowMs;
/**
 * Nobody can hold the victim dead sooner. A probe sent before the link went down was answered then, unless
 * the victim took longer to answer than was left (a round trip inside one bridge takes well under a
 * millisecond; a stalled event loop takes more). The suspicion of a failed probe is raised when its
 * period ends, one probe interval after it was sent. Counting only one probe timeout leaves the rest of
 * the interval for the victim's delay. The suspicion then runs at least the host-silence window, or,
 * without it, Lifeguard's shortest timeout, reached only with every confirmation it expects.
 */
const SUSPICION_FLOOR_MS = lan.probeTimeoutMs;
const DEATH_FLOOR_MS =
  lan.probeTimeoutMs +
  (TIMING.hostSilenceWindowMs === 0
    ? TIMING.suspicionMinMs
    : Math.min(TIMING.hostSilenceWindowMs, TIMING.suspicionMinMs));
/**
 * On top of protocol bounds, for what the model leaves out: five Node.js processes' timers firing late on
 * two shared cores, and the stdout pipes. As in test/cli/agent-netns-loss.system.test.ts.
 */
const SCHEDULING_SLACK_MS = 1000;
/**
 * How soon the victim is back. While its link is down, its own probes fail without a nack, so Lifeguard
 * stretches its probe period up to awarenessMaxMultiplier × probe interval; it holds the others suspect
 * (no confirmation can reach it, so its suspicions run to the longest timeout, past this test's cut). Its
 * next probe after the link is up reaches a member that holds it dead, whose ack carries the accusation:
 * it refutes, and the refutation spreads by gossip. So: one stretched period, its probe timeout (stretched
 * as much), and the dissemination time.
 */
const REJOIN_BOUND_MS =
  lan.awarenessMaxMultiplier * (lan.probeIntervalMs + lan.probeTimeoutMs) + TIMING.disseminationMs;
/**
 * Every view whole again: a suspicion the victim raised while cut off is refuted once the suspect hears
 * it, and cannot outlive the longest suspicion timeout; past that it would be a death, which the test
 * catches.
 */
const SETTLE_MS = TIMING.suspicionMaxMs + SCHEDULING_SLACK_MS;
/** Each `ip`/`nft` command is bounded by 10 s (examples/support/netns.ts); a test does a handful of them. */
const COMMANDS_MS = 20_000;

function fmt(ms: number): string {
  return `${Math.round(ms)} ms`;
}

/** An event line, compact and relative to `zero`, for the log. */
function brief(e: Received, zero: number): string {
  const l = e.line;
  return `+${((e.at - zero) / 1000).toFixed(2)}s ${l.node}: ${l.event} ${l.member} #${l.incarnation} (${l.cause})`;
}

describe('fdkit agent: five namespaces, one host link taken down', () => {
  let network: LossNetwork | undefined;
  let agents: AgentProcess[] = [];
  /** `performance.now()` just before and just after the `ip link set eth0 down`. */
  let downAt = Number.NaN;
  let downDoneAt = Number.NaN;
  const started = performance.now();

  const cluster = async (): Promise<{ network: LossNetwork; agents: AgentProcess[] }> => {
    await requirePrerequisites();
    if (network === undefined || agents.length !== NAMES.length) {
      throw new Error(
        'the namespaces and agents were not set up: see the failure of the test that forms them',
      );
    }
    return { network, agents };
  };
  const survivors = (): AgentProcess[] => agents.filter((a) => a.name !== VICTIM);
  /** Deaths of a survivor in a survivor's view: each one is false. */
  const falseDeaths = (): Received[] =>
    survivors().flatMap((s) => s.events.filter((e) => e.line.event === 'dead' && e.line.member !== VICTIM));

  afterAll(async () => {
    await killAll(agents);
    await network?.destroy();
    console.log(`link-down scenario: ${fmt(performance.now() - started)} of wall time`);
  }, COMMANDS_MS);

  it(
    'forms a cluster of five agents, one per namespace, joined through the first',
    async () => {
      await requirePrerequisites();
      network = await LossNetwork.create(NAMES.length, 'fdkit-linkdown');
      agents = await startCluster(NAMES, {
        placements: {
          hosts: network.hosts.map((h) => ({ netns: h.netns, exec: h.exec, host: h.ip })),
          port: PORT,
        },
      });
      expect(converged(agents), describeAgents(agents)).toBe(true);
      for (const a of agents) expect(a.events.filter((e) => e.line.event !== 'alive')).toEqual([]);
    },
    30_000 + COMMANDS_MS,
  );

  it(
    `holds the victim dead at every survivor after ${DEATH_FLOOR_MS} ms and within ${DETECTION_BOUND_MS} ms (+ ${SCHEDULING_SLACK_MS} ms), with no false death`,
    async () => {
      const { network, agents } = await cluster();
      expect(converged(agents), describeAgents(agents)).toBe(true);
      const alive = survivors();
      downAt = performance.now();
      await network.setLink(VICTIM_INDEX, 'down');
      downDoneAt = performance.now();
      const allDead = await waitUntil(
        () => alive.every((s) => s.first(VICTIM, 'dead', downAt) !== undefined) || falseDeaths().length > 0,
        DETECTION_BOUND_MS + SCHEDULING_SLACK_MS + 3000,
      );
      const deadAt = alive.map((s) => s.first(VICTIM, 'dead', downAt)?.at ?? Number.NaN);
      const suspects = alive.flatMap((s) =>
        s.about(VICTIM, downAt).filter((e) => e.line.event === 'suspect'),
      );
      const firstSuspicion = Math.min(...suspects.map((e) => e.at));
      const lines = agents
        .flatMap((a) => a.events.filter((e) => e.at >= downAt))
        .sort((x, y) => x.at - y.at)
        .map((e) => brief(e, downAt));
      console.log(
        `link down ${VICTIM} (ip took ${fmt(downDoneAt - downAt)}): first suspicion ${fmt(firstSuspicion - downAt)}, ` +
          `dead at ${alive.map((s, i) => `${s.name} ${fmt(deadAt[i]! - downAt)}`).join(', ')}; ` +
          `floor ${DEATH_FLOOR_MS} ms, bound ${DETECTION_BOUND_MS} ms + slack ${SCHEDULING_SLACK_MS} ms\n${lines.join('\n')}`,
      );

      expect(allDead, describeAgents(agents)).toBe(true);
      expect(
        falseDeaths().map((e) => brief(e, downAt)),
        'survivors declared dead',
      ).toEqual([]);
      for (const [i, s] of alive.entries()) {
        expect(deadAt[i]! - downAt, `${s.name} held ${VICTIM} dead too soon`).toBeGreaterThanOrEqual(
          DEATH_FLOOR_MS,
        );
        expect(deadAt[i]! - downDoneAt, `${s.name} held ${VICTIM} dead too late`).toBeLessThanOrEqual(
          DETECTION_BOUND_MS + SCHEDULING_SLACK_MS,
        );
        expect(s.stateOf(VICTIM)).toBe('dead');
      }
      // A suspicion comes first, from a probe that failed: no sooner than one probe timeout.
      expect(suspects.length).toBeGreaterThan(0);
      expect(firstSuspicion - downAt).toBeGreaterThanOrEqual(SUSPICION_FLOOR_MS);
      expect(firstSuspicion).toBeLessThanOrEqual(Math.min(...deadAt));
      // Cut off, the victim still runs. No confirmation of its own suspicions can reach it, so none of
      // them ends before the longest timeout: it holds nobody dead before that.
      expect(
        agents.every((a) => a.running),
        describeAgents(agents),
      ).toBe(true);
      const victim = agents[VICTIM_INDEX]!;
      const early = victim.events.filter(
        (e) => e.line.event === 'dead' && e.at - downAt < lan.probeTimeoutMs + TIMING.suspicionMaxMs,
      );
      expect(early.map((e) => brief(e, downAt))).toEqual([]);
    },
    DETECTION_BOUND_MS + SCHEDULING_SLACK_MS + 3000 + COMMANDS_MS,
  );

  it(
    `takes the victim back once its link is up: alive at every survivor within ${REJOIN_BOUND_MS} ms (+ ${SCHEDULING_SLACK_MS} ms), every view whole within ${SETTLE_MS} ms`,
    async () => {
      const { network, agents } = await cluster();
      const victim = agents[VICTIM_INDEX]!;
      const alive = survivors();
      expect(
        alive.every((s) => s.stateOf(VICTIM) === 'dead'),
        'the previous test left the victim dead everywhere',
      ).toBe(true);
      const upAt = performance.now();
      await network.setLink(VICTIM_INDEX, 'up');
      const upDoneAt = performance.now();
      const back = await waitUntil(
        () => alive.every((s) => s.stateOf(VICTIM) === 'alive'),
        REJOIN_BOUND_MS + SCHEDULING_SLACK_MS + 3000,
      );
      const backAt = performance.now();
      const whole = await waitUntil(() => converged(agents), SETTLE_MS);
      const wholeAt = performance.now();
      const refutations = alive.map((s) => s.first(VICTIM, 'alive', upAt));
      const lines = agents
        .flatMap((a) => a.events.filter((e) => e.at >= upAt))
        .sort((x, y) => x.at - y.at)
        .map((e) => brief(e, upAt));
      console.log(
        `link up ${VICTIM}: alive again at ${alive.map((s, i) => `${s.name} ${fmt((refutations[i]?.at ?? Number.NaN) - upAt)}`).join(', ')}; ` +
          `every view whole ${fmt(wholeAt - upAt)} after; victim's own lines while cut off: ` +
          `${victim.events.filter((e) => e.at >= downAt && e.at < upAt).length}\n${lines.join('\n')}`,
      );

      expect(back, describeAgents(agents)).toBe(true);
      expect(backAt - upDoneAt).toBeLessThanOrEqual(REJOIN_BOUND_MS + SCHEDULING_SLACK_MS);
      // It came back by refuting: a higher incarnation than the one it died at.
      for (const [i, s] of alive.entries()) {
        const died = s.first(VICTIM, 'dead', downAt)!.line.incarnation;
        expect(refutations[i]?.line.incarnation, s.name).toBeGreaterThan(died);
      }
      expect(whole, describeAgents(agents)).toBe(true);
      expect(
        falseDeaths().map((e) => brief(e, downAt)),
        'survivors declared dead',
      ).toEqual([]);
      expect(agents.flatMap((a) => a.events.filter((e) => e.line.event === 'left'))).toEqual([]);
    },
    REJOIN_BOUND_MS + SCHEDULING_SLACK_MS + 3000 + SETTLE_MS + COMMANDS_MS,
  );

  it(
    'printed only event lines and pino logs below error level, and removes its namespaces',
    async () => {
      const { network: net, agents } = await cluster();
      await killAll(agents);
      for (const a of agents) {
        expect(a.closed, a.name).toBe(true);
        expect(a.badLines, a.name).toEqual([]);
        expect(
          stderrBeyondWarnings(a),
          `${a.name}: stderr lines that are not pino JSON below error level:\n${a.stderrLines.join('\n')}`,
        ).toEqual([]);
      }
      await net.destroy();
      const left = (await listNamespaces()).filter((n) => n.startsWith(`${net.prefix}-`));
      expect(left).toEqual([]);
    },
    COMMANDS_MS,
  );
});
