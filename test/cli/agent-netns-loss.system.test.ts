/**
 * Acceptance run of `fdkit agent` under packet loss: five agents (default `lan` profile), each in its own
 * network namespace, on one bridge (examples/support/netns.ts). The kernel here has no netem, so the loss is
 * an nftables rule in every namespace that drops 20 % of incoming IPv4 packets at random, UDP and TCP
 * alike; nftables counters measure what it really dropped.
 *
 * - With 20 % loss for 60 s, no member is declared dead by anyone; suspicions and refutations are
 *   expected (a probe, its indirect probes and their acks all cross the lossy links) and are reported.
 *   Once the loss is lifted, every agent holds the four others alive within the longest suspicion timeout.
 * - Control: under the same loss, a `kill -9` of one agent is still reported dead by the four others within
 *   the `lan` bound for five members (`expectedTiming(lan, 5).worstCaseAllKnowMs`) plus a stated slack.
 *
 * Needs root, `ip` (iproute2) and `nft` (nftables), which `.ci/run` installs; without them every test here
 * fails with a message naming what is missing, rather than being skipped. Waits are bounded polls.
 */
import { performance } from 'node:perf_hooks';
import { afterAll, describe, expect, it } from 'vitest';
import {
  countsBetween,
  type LossCount,
  LossNetwork,
  listNamespaces,
  requirePrerequisites,
} from '../../examples/support/netns.js';
import { lan } from '../../src/swim/profiles.js';
import { expectedTiming } from '../../src/swim/timing.js';
import {
  type AgentProcess,
  converged,
  describeAgents,
  killAll,
  type Received,
  sleep,
  startCluster,
  stderrBeyondWarnings,
  waitUntil,
} from './agent-process.js';

const NAMES = ['n0', 'n1', 'n2', 'n3', 'n4'];
const KILLED = 'n4';
/** Every namespace has its own ports: one fixed port serves all five, and nobody else can hold it. */
const PORT = 7946;
const LOSS_PERCENT = 20;
const LOSS_MS = 60_000;
/**
 * The drop ratio the counters must show over the 60 s. About 2,000 packets cross the links in that time
 * (five members probing once a second, acks, indirect probes, gossip); at p = 0.2 the standard deviation
 * of the ratio is then under 1 %, so ±5 % fails only when the rule does not do what it says.
 */
const RATIO_MIN = 0.15;
const RATIO_MAX = 0.25;
/** Enough packets for the ratio to mean something: with 1,000, ±5 % is still 4 standard deviations. */
const MIN_PACKETS = 1000;

const TIMING = expectedTiming(lan, NAMES.length);
/** The contract: every member holds a crashed member dead within this (32.8 s for lan at n = 5). */
const DETECTION_BOUND_MS = TIMING.worstCaseAllKnowMs;
/**
 * On top of protocol bounds, for what the model leaves out: five Node.js processes' timers firing late on two
 * cores shared with vitest's other CPU-bound suites, and the stdout pipes. As in
 * test/cli/agent-cluster.system.test.ts.
 */
const SCHEDULING_SLACK_MS = 1000;
/**
 * Once the loss is lifted, a suspicion still running is refuted at the latest when its accuser hears
 * the refutation, and it cannot outlive the longest suspicion timeout (24 s): past that it would have
 * become a death, which the test catches. Converged views then stay so for two probe periods.
 */
const SETTLE_MS = TIMING.suspicionMaxMs + SCHEDULING_SLACK_MS;
const STABLE_MS = 2 * lan.probeIntervalMs;
/** Each `ip`/`nft` command is bounded by 10 s (examples/support/netns.ts); a test does a handful of them. */
const COMMANDS_MS = 20_000;

function fmt(ms: number): string {
  return `${Math.round(ms)} ms`;
}

function percent(part: number, whole: number): string {
  return whole === 0 ? 'n/a' : `${((100 * part) / whole).toFixed(1)} %`;
}

/** An event line, compact and relative to `zero`, for the log. */
function brief(e: Received, zero: number): string {
  const l = e.line;
  return `+${((e.at - zero) / 1000).toFixed(1)}s ${l.node}: ${l.event} ${l.member} #${l.incarnation} (${l.cause})`;
}

function ratioLine(label: string, before: readonly LossCount[], after: readonly LossCount[]): string {
  const d = countsBetween(before, after);
  const each = d.each.map((c) => `${c.netns.replace(/^.*-/, '')} ${c.dropped}/${c.seen}`).join(', ');
  return `${label}: dropped ${d.dropped} of ${d.seen} packets (${percent(d.dropped, d.seen)}); per host ${each}`;
}

describe(`fdkit agent: five namespaces at ${LOSS_PERCENT} % random loss`, () => {
  let network: LossNetwork | undefined;
  let agents: AgentProcess[] = [];
  const started = performance.now();

  /** The running cluster, or an error that points at the test that should have started it. */
  const cluster = async (): Promise<{ network: LossNetwork; agents: AgentProcess[] }> => {
    await requirePrerequisites();
    if (network === undefined || agents.length !== NAMES.length) {
      throw new Error(
        'the namespaces and agents were not set up: see the failure of the test that forms them',
      );
    }
    return { network, agents };
  };
  const deathsAbout = (exempt: string | undefined): Received[] =>
    agents.flatMap((a) => a.events.filter((e) => e.line.event === 'dead' && e.line.member !== exempt));

  afterAll(async () => {
    await killAll(agents);
    await network?.destroy();
    console.log(`namespace scenario: ${fmt(performance.now() - started)} of wall time`);
  }, COMMANDS_MS);

  it('runs as root with ip and nft', async () => {
    await requirePrerequisites();
  });

  it(
    'forms a cluster of five agents, one per namespace, joined through the first',
    async () => {
      await requirePrerequisites();
      const createdAt = performance.now();
      network = await LossNetwork.create(NAMES.length);
      const formingAt = performance.now();
      agents = await startCluster(NAMES, {
        placements: {
          hosts: network.hosts.map((h) => ({ netns: h.netns, exec: h.exec, host: h.ip })),
          port: PORT,
        },
      });
      console.log(
        `namespaces ${network.prefix}-{br,h0..h4} on ${network.subnet} in ${fmt(formingAt - createdAt)}; ` +
          `cluster formed in ${fmt(performance.now() - formingAt)}: ${agents.map((a) => a.address).join(' ')}`,
      );
      expect(converged(agents), describeAgents(agents)).toBe(true);
      for (const a of agents) expect(a.events.filter((e) => e.line.event !== 'alive')).toEqual([]);
    },
    30_000 + COMMANDS_MS,
  );

  it(
    `declares no member dead in ${LOSS_MS / 1000} s at ${LOSS_PERCENT} % loss, and every view is whole again after`,
    async () => {
      const { network, agents } = await cluster();
      const before = await network.counts();
      const lossAt = performance.now();
      await network.setLoss(LOSS_PERCENT);
      // Stops early on a death or an agent gone: the test has failed by then, and there is nothing to wait for.
      await waitUntil(
        () => deathsAbout(undefined).length > 0 || agents.some((a) => !a.running),
        LOSS_MS,
        200,
      );
      const lossMs = performance.now() - lossAt;
      const after = await network.counts();
      await network.setLoss(0);
      const liftedAt = performance.now();
      const whole = await waitUntil(() => converged(agents), SETTLE_MS);
      const settleMs = performance.now() - liftedAt;
      await sleep(STABLE_MS);
      const settled = whole && converged(agents);

      const during = agents.flatMap((a) => a.events.filter((e) => e.at >= lossAt));
      during.sort((x, y) => x.at - y.at);
      const suspicions = during.filter((e) => e.line.event === 'suspect');
      const refutations = during.filter((e) => e.line.event === 'alive' && e.line.cause === 'refuted');
      // One accusation reaches every member, so each suspect line is one member learning of one; distinct
      // (member, incarnation) pairs count the accusations themselves.
      const accusations = new Set(suspicions.map((e) => `${e.line.member}#${e.line.incarnation}`));
      const deaths = deathsAbout(undefined);
      const { seen, dropped } = countsBetween(before, after);
      console.log(
        `${LOSS_PERCENT} % loss for ${fmt(lossMs)}: ${ratioLine('measured', before, after)}\n` +
          `${suspicions.length} suspect lines (${accusations.size} accusations), ${refutations.length} refutation lines, ` +
          `${deaths.length} dead lines; loss lifted, views whole ${fmt(settleMs)} later (and still ${fmt(STABLE_MS)} after that)` +
          (during.length > 0 ? `\n${during.map((e) => brief(e, lossAt)).join('\n')}` : ''),
      );

      expect(
        deaths.map((e) => brief(e, lossAt)),
        'members declared dead',
      ).toEqual([]);
      expect(
        agents.every((a) => a.running),
        describeAgents(agents),
      ).toBe(true);
      expect(lossMs).toBeGreaterThanOrEqual(LOSS_MS);
      expect(settled, describeAgents(agents)).toBe(true);
      expect(agents.flatMap((a) => a.events.filter((e) => e.line.event === 'left'))).toEqual([]);
      // The loss was real: the counters saw the cluster's packets and dropped about one in five.
      expect(seen).toBeGreaterThanOrEqual(MIN_PACKETS);
      expect(dropped / seen).toBeGreaterThanOrEqual(RATIO_MIN);
      expect(dropped / seen).toBeLessThanOrEqual(RATIO_MAX);
    },
    LOSS_MS + SETTLE_MS + STABLE_MS + COMMANDS_MS,
  );

  it(
    `still reports a kill -9 dead at the four others within the lan bound (${DETECTION_BOUND_MS} ms + ${SCHEDULING_SLACK_MS} ms) at ${LOSS_PERCENT} % loss`,
    async () => {
      const { network, agents } = await cluster();
      const killed = agents.find((a) => a.name === KILLED)!;
      const survivors = agents.filter((a) => a !== killed);
      expect(converged(agents), describeAgents(agents)).toBe(true);
      await network.setLoss(LOSS_PERCENT);
      const before = await network.counts();
      const killAt = performance.now();
      killed.signal('SIGKILL');
      const allDead = await waitUntil(
        () => survivors.every((s) => s.first(KILLED, 'dead', killAt) !== undefined),
        DETECTION_BOUND_MS + SCHEDULING_SLACK_MS + 3000,
      );
      const after = await network.counts();
      await network.setLoss(0);
      const deadAts = survivors.map((s) => (s.first(KILLED, 'dead', killAt)?.at ?? Number.NaN) - killAt);
      const allKnowMs = Math.max(...deadAts);
      console.log(
        `kill -9 ${KILLED} at ${LOSS_PERCENT} % loss: dead at ${survivors.map((s, i) => `${s.name} ${fmt(deadAts[i]!)}`).join(', ')}; ` +
          `causes ${survivors.map((s) => `${s.name}:${s.first(KILLED, 'dead', killAt)?.line.cause}`).join(' ')}; ` +
          `bound ${DETECTION_BOUND_MS} ms + slack ${SCHEDULING_SLACK_MS} ms; ${ratioLine('meanwhile', before, after)}`,
      );
      expect(allDead, describeAgents(agents)).toBe(true);
      expect(allKnowMs).toBeLessThanOrEqual(DETECTION_BOUND_MS + SCHEDULING_SLACK_MS);
      for (const s of survivors) expect(s.stateOf(KILLED)).toBe('dead');
      expect(
        deathsAbout(KILLED).map((e) => brief(e, killAt)),
        'members declared dead',
      ).toEqual([]);
      await waitUntil(() => killed.closed, 5000);
      expect(killed.exit?.signal).toBe('SIGKILL');
    },
    DETECTION_BOUND_MS + SCHEDULING_SLACK_MS + 3000 + COMMANDS_MS,
  );

  it(
    'printed only event lines and pino logs below error level, and removes its namespaces',
    async () => {
      const { network: net } = await cluster();
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
