/**
 * Acceptance run of `fdkit agent --downing keep-majority` across a real partition (issue 17): five agents
 * (default `lan` profile, `--http` on each namespace's loopback), each in its own network namespace on one
 * bridge (examples/support/netns.ts), cut 3/2 by nftables rules that drop every packet between the sides
 * (examples/support/partition.ts).
 *
 * - The two minority agents log that the resolver downed them and exit with status 3: not before
 *   `stableAfterMs` after the cut (the resolver waits for a view that has been stable that long), and
 *   within `stableAfterMs` + the suspicion timeout + 2 s.
 * - The three majority agents keep running and serving: `/v1/health` ready, `/v1/members` holding the
 *   three alive and the two cut off not alive (once SWIM's view caught up with the resolver's reach
 *   checks, within `worstCaseAllKnowMs` of the cut), and `/v1/leader` naming the same one of them on all three.
 *   The minority holds the leader before the cut, so the hint must move.
 * - After the heal the two downed agents are started again (same names, new processes) joining the
 *   majority: one cluster of five, every agent holding the four others alive, the restarted ones at a
 *   higher incarnation than their previous lives, and one leader named by all five.
 *
 * Needs root, `ip` (iproute2) and `nft` (nftables), which `.ci/run` installs; without them every test here
 * fails with a message naming what is missing, rather than being skipped. Waits are bounded polls.
 */
import { performance } from 'node:perf_hooks';
import { afterAll, describe, expect, it } from 'vitest';
import {
  LossNetwork,
  listNamespaces,
  type NetnsHost,
  requirePrerequisites,
  runIn,
} from '../../examples/support/netns.js';
import { Partition } from '../../examples/support/partition.js';
import { defaultStableAfterMs } from '../../src/downing/downing-options.js';
import { lan } from '../../src/swim/profiles.js';
import { expectedTiming } from '../../src/swim/timing.js';
import {
  AgentProcess,
  converged,
  describeAgents,
  killAll,
  startCluster,
  waitUntil,
} from './agent-process.js';

const NAMES = ['n0', 'n1', 'n2', 'n3', 'n4'];
/**
 * The cut-off side holds n0, which every hint names before the cut (no priorities: the smallest name
 * leads), so that the majority's hint has to move to one of its own.
 */
const MINORITY = [0, 1];
const MAJORITY = [2, 3, 4];
const PORT = 7946;
/** Each namespace has its own loopback: one port serves all five APIs, reached from inside the namespace. */
const HTTP_PORT = 8080;
/** The agents' exit status when downed (src/cli/agent-downing.ts; docs/cli.md). */
const DOWNED_STATUS = 3;
const DOWNED_MSG = 'downed by the split-brain resolver; exiting';

/**
 * Passed to every agent explicitly: the default is computed from the view's size when the resolver
 * starts, which differs between the seed (alone) and the members that join it. This is the default for
 * a cluster of five (5.6 s for lan).
 */
const STABLE_AFTER_MS = defaultStableAfterMs('lan', NAMES.length);
const TIMING = expectedTiming(lan, NAMES.length);
/**
 * The suspicion timeout in memberlist's sense (`suspicionMult × log10 n × probe interval`, 4 s for lan at
 * five): time for the members of the other side to be found one probe at a time and the view to settle.
 */
const SUSPICION_TIMEOUT_MS = TIMING.suspicionMinMs;
/** The contract: the minority exits within this after the cut (11.6 s for lan at five). */
const DOWNED_WITHIN_MS = STABLE_AFTER_MS + SUSPICION_TIMEOUT_MS + 2000;
/** Waited on past the bound, only to report how late a minority agent was (the assertion keeps the bound). */
const OBSERVE_PAST_BOUND_MS = 10_000;
/**
 * A restarted agent joins over TCP through a majority seed and is held alive by it at once; the others
 * learn it by gossip within a dissemination, and it learns them from the join's state. Two probe periods
 * and a second of scheduling slack on top.
 */
const REJOIN_MS = TIMING.disseminationMs + 2 * lan.probeIntervalMs + 1000;
/**
 * Once whole, every hint names the best of the five once comebacks have stayed alive for the hint's
 * `stableForMs` (10 s by default, 11 s for the member itself: docs/leader-hint.md); before that they may
 * already agree on the majority's leader. Five seconds of slack for the polls.
 */
const ONE_LEADER_MS = 11_000 + 5000;
/** Each `ip`/`nft` command is bounded by 10 s (examples/support/netns.ts); a test does a handful of them. */
const COMMANDS_MS = 20_000;

const agentArgs = [
  '--downing',
  'keep-majority',
  '--stable-after-ms',
  String(STABLE_AFTER_MS),
  '--http',
  `127.0.0.1:${HTTP_PORT}`,
];

/** Fetches a URL from inside a namespace: nothing routes from the test's namespace to the agents'. */
const FETCH = `
const [url, ms] = process.argv.slice(1);
fetch(url, { signal: AbortSignal.timeout(Number(ms)) }).then(
  async (r) => process.stdout.write(JSON.stringify({ status: r.status, body: await r.text() })),
  (e) => { process.stderr.write(String(e)); process.exit(1); },
);`;

interface HttpAnswer {
  readonly status: number;
  readonly body: unknown;
}

/** GET `path` of the agent API in `host`'s namespace. */
async function get(host: NetnsHost, path: string): Promise<HttpAnswer> {
  const url = `http://127.0.0.1:${HTTP_PORT}${path}`;
  const { stdout } = await runIn(host, [process.execPath, '-e', FETCH, url, '3000']);
  const answer = JSON.parse(stdout) as { status: number; body: string };
  return { status: answer.status, body: JSON.parse(answer.body) as unknown };
}

interface LeaderJson {
  readonly leader: string;
  readonly epoch: number;
  readonly isLeader: boolean;
}

interface MemberJson {
  readonly name: string;
  readonly state: string;
  readonly incarnation: number;
}

/** The leader each host's hint names, in order. */
async function leaders(hosts: readonly NetnsHost[]): Promise<string[]> {
  return Promise.all(hosts.map(async (h) => ((await get(h, '/v1/leader')).body as LeaderJson).leader));
}

/** Polls until every host names the same leader, bounded; resolves with the last answers. */
async function agreedLeader(hosts: readonly NetnsHost[], timeoutMs: number): Promise<string[]> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const named = await leaders(hosts);
    if (new Set(named).size === 1 || performance.now() > deadline) return named;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The fields of the agent's pino lines that are read here. */
interface LogLine {
  readonly time?: number;
  readonly msg?: string;
  readonly members?: readonly string[];
  readonly reason?: string;
}

/** An agent's stderr lines that are JSON (pino's), parsed. */
function logLines(agent: AgentProcess): LogLine[] {
  return agent.stderrLines.flatMap((text) => {
    try {
      return [JSON.parse(text) as LogLine];
    } catch {
      return [];
    }
  });
}

/**
 * The resolver's decisions an agent logged (`time` is wall ms), relative to `zeroWallMs`, for the log:
 * `+9.1s down n2`, `+9.4s downed-self`.
 */
function decisions(agent: AgentProcess, zeroWallMs: number): string[] {
  return logLines(agent).flatMap((line) => {
    const at = `+${(((line.time ?? Number.NaN) - zeroWallMs) / 1000).toFixed(1)}s`;
    if (line.msg === 'downed unreachable members') return [`${at} down ${line.members?.join(',')}`];
    if (line.msg === DOWNED_MSG) return [`${at} downed-self (${line.reason})`];
    return [];
  });
}

function fmt(ms: number): string {
  return `${Math.round(ms)} ms`;
}

describe('fdkit agent --downing keep-majority: five namespaces split 3/2', () => {
  let network: LossNetwork | undefined;
  let partition: Partition | undefined;
  let agents: AgentProcess[] = [];
  /** When the cut's rules were all in place. */
  let cutAt: number | undefined;
  const started = performance.now();

  const cluster = async (): Promise<{ network: LossNetwork; partition: Partition }> => {
    await requirePrerequisites();
    if (network === undefined || partition === undefined || agents.length !== NAMES.length) {
      throw new Error(
        'the namespaces and agents were not set up: see the failure of the test that forms them',
      );
    }
    return { network, partition };
  };
  const placement = (i: number) => {
    const h = network!.hosts[i]!;
    return { netns: h.netns, exec: h.exec, host: h.ip };
  };

  afterAll(async () => {
    await killAll(agents);
    await network?.destroy();
    console.log(`downing scenario: ${fmt(performance.now() - started)} of wall time`);
  }, COMMANDS_MS);

  it('runs as root with ip and nft', async () => {
    await requirePrerequisites();
  });

  it(
    'forms a cluster of five agents with --downing keep-majority and --http, all naming n0',
    async () => {
      await requirePrerequisites();
      network = await LossNetwork.create(NAMES.length);
      partition = new Partition(network);
      const formingAt = performance.now();
      agents = await startCluster(NAMES, {
        args: agentArgs,
        placements: { hosts: NAMES.map((_, i) => placement(i)), port: PORT },
      });
      console.log(
        `cluster formed in ${fmt(performance.now() - formingAt)} on ${network.subnet}; ` +
          `stableAfterMs ${STABLE_AFTER_MS}, downed within ${DOWNED_WITHIN_MS} ms`,
      );
      expect(converged(agents), describeAgents(agents)).toBe(true);
      expect(await agreedLeader(network.hosts, 5000)).toEqual(NAMES.map(() => 'n0'));
    },
    30_000 + COMMANDS_MS,
  );

  it(
    `downs the minority: both exit with status ${DOWNED_STATUS} after ${STABLE_AFTER_MS} ms and within ${DOWNED_WITHIN_MS} ms of the cut`,
    async () => {
      const { partition } = await cluster();
      const minority = MINORITY.map((i) => agents[i]!);
      const majority = MAJORITY.map((i) => agents[i]!);
      const cutFrom = performance.now();
      await partition.cut(MINORITY, MAJORITY);
      const cutDone = performance.now();
      cutAt = cutDone;
      await waitUntil(
        () => minority.every((a) => !a.running) || majority.some((a) => !a.running),
        DOWNED_WITHIN_MS + OBSERVE_PAST_BOUND_MS,
        50,
      );
      // Lower bound from the moment the rules were surely in place, upper bound from the moment they
      // started to go in: each side of the test's check is the strict one.
      const exits = minority.map((a) => ({
        name: a.name,
        afterCut: (a.exit?.at ?? Number.NaN) - cutDone,
        sinceCutFrom: (a.exit?.at ?? Number.NaN) - cutFrom,
      }));
      const dropped = await partition.dropped();
      console.log(
        `cut ${MINORITY.map((i) => NAMES[i]).join(',')} | ${MAJORITY.map((i) => NAMES[i]).join(',')} ` +
          `(rules in ${fmt(cutDone - cutFrom)}); minority exits ` +
          exits
            .map((e) => `${e.name} ${Number.isNaN(e.afterCut) ? 'still running' : fmt(e.sinceCutFrom)}`)
            .join(', ') +
          ` (bounds: not before ${STABLE_AFTER_MS} ms, within ${DOWNED_WITHIN_MS} ms); ` +
          `packets dropped by the cut per host: ${dropped.join(' ')}; decisions: ` +
          agents
            .map((a) => `${a.name} [${decisions(a, performance.timeOrigin + cutFrom).join('; ')}]`)
            .join(' '),
      );

      expect(dropped.every((d) => d > 0)).toBe(true);
      expect(
        majority.every((a) => a.running),
        describeAgents(agents),
      ).toBe(true);
      for (const a of minority) {
        expect(a.running, `${a.name} still running\n${describeAgents(agents)}`).toBe(false);
        expect(a.exit?.code, a.name).toBe(DOWNED_STATUS);
        expect(
          logLines(a).some((l) => l.msg === DOWNED_MSG),
          a.stderrLines.join('\n'),
        ).toBe(true);
      }
      for (const e of exits) {
        expect(e.afterCut, `${e.name}\n${describeAgents(agents)}`).toBeGreaterThanOrEqual(STABLE_AFTER_MS);
        expect(e.sinceCutFrom, `${e.name}\n${describeAgents(agents)}`).toBeLessThanOrEqual(DOWNED_WITHIN_MS);
      }
    },
    DOWNED_WITHIN_MS + OBSERVE_PAST_BOUND_MS + COMMANDS_MS,
  );

  it(
    'the majority keeps running and serving through the cut: healthy, its three alive, one leader of its own',
    async () => {
      const { network } = await cluster();
      if (cutAt === undefined) throw new Error('the cut was not made: see the failure of the test before');
      const majority = MAJORITY.map((i) => agents[i]!);
      const majorityNames = MAJORITY.map((i) => NAMES[i]!);
      const majorityHosts = MAJORITY.map((i) => network.hosts[i]!);
      // The majority decides on its own view, in the same bound as the minority: it may come after the
      // minority's exits, on a machine whose two cores run other suites too.
      const downedLine = (a: AgentProcess): boolean =>
        logLines(a).some((line) => line.msg === 'downed unreachable members');
      const decided = await waitUntil(
        () => majority.every(downedLine),
        Math.max(0, cutAt + DOWNED_WITHIN_MS - performance.now()),
      );
      expect(
        decided,
        `the majority decided within ${DOWNED_WITHIN_MS} ms of the cut\n${describeAgents(agents)}`,
      ).toBe(true);
      expect(
        majority.every((a) => a.running),
        describeAgents(agents),
      ).toBe(true);
      // The resolver decides on its reach checks, which ping every member at once; SWIM finds the cut-off
      // members one probe at a time, slowed by Lifeguard while ping-reqs through them go unanswered. So
      // a majority member may still hold one of them alive when it decides: its view must catch up
      // within SWIM's own bound from the cut (a probe of it, the full suspicion, the dissemination).
      const minorityNames = MINORITY.map((i) => NAMES[i]!);
      const caughtUp = await waitUntil(
        () => majority.every((a) => minorityNames.every((m) => a.stateOf(m) !== 'alive')),
        Math.max(0, cutAt + TIMING.worstCaseAllKnowMs - performance.now()),
        50,
      );
      expect(
        caughtUp,
        `the majority held the cut-off side not alive within ${TIMING.worstCaseAllKnowMs} ms of the cut\n` +
          describeAgents(agents),
      ).toBe(true);
      for (const h of majorityHosts) {
        const health = await get(h, '/v1/health');
        expect(health.status, h.netns).toBe(200);
        expect(['ready', 'degraded']).toContain((health.body as { status: string }).status);
        const members = (await get(h, '/v1/members')).body as MemberJson[];
        const alive = members.filter((m) => m.state === 'alive').map((m) => m.name);
        // Every agent's events, should one of the majority still hold a minority member alive.
        expect(alive.sort(), `${h.netns}\n${describeAgents(agents)}`).toEqual(majorityNames);
      }
      const named = await agreedLeader(majorityHosts, 5000);
      console.log(`majority hints during the cut: ${named.join(' ')}`);
      expect(new Set(named).size).toBe(1);
      expect(majorityNames).toContain(named[0]);
      // Each majority member's resolver downed exactly the cut-off side (in one decision or several).
      for (const a of majority) {
        const downed = logLines(a).flatMap((line) =>
          line.msg === 'downed unreachable members' ? (line.members ?? []) : [],
        );
        expect([...new Set(downed)].sort(), `${a.name}\n${a.stderrLines.join('\n')}`).toEqual(
          MINORITY.map((i) => NAMES[i]),
        );
      }
    },
    TIMING.worstCaseAllKnowMs + COMMANDS_MS,
  );

  it(
    'after the heal, the restarted minority rejoins: one cluster of five at new incarnations, one leader',
    async () => {
      const { network, partition } = await cluster();
      const seed = agents[MAJORITY[0]!]!;
      const incarnationBefore = new Map(
        MINORITY.map((i) => [NAMES[i]!, seed.first(NAMES[i]!, 'alive')?.line.incarnation ?? Number.NaN]),
      );
      // A minority agent the resolver failed to down (the previous test then failed) is ended here, so
      // that the rejoin is still checked on its own.
      await Promise.all(MINORITY.map((i) => agents[i]!.kill()));
      await partition.heal();
      const healedAt = performance.now();
      for (const i of MINORITY) {
        agents[i] = new AgentProcess(NAMES[i]!, PORT, ['--join', seed.address, ...agentArgs], placement(i));
      }
      const whole = await waitUntil(() => converged(agents), REJOIN_MS);
      const rejoinMs = performance.now() - healedAt;
      const named = await agreedLeader(network.hosts, ONE_LEADER_MS);
      const oneLeaderMs = performance.now() - healedAt;
      const incarnations = MINORITY.map((i) => ({
        name: NAMES[i]!,
        before: incarnationBefore.get(NAMES[i]!)!,
        seen: MAJORITY.map((j) => {
          const about = agents[j]!.about(NAMES[i]!).filter((e) => e.line.event === 'alive');
          return about.at(-1)?.line.incarnation ?? Number.NaN;
        }),
      }));
      console.log(
        `healed; restarted ${MINORITY.map((i) => NAMES[i]).join(', ')} whole ${fmt(rejoinMs)} later ` +
          `(bound ${REJOIN_MS} ms); one leader (${named.join(' ')}) ${fmt(oneLeaderMs)} after the heal; ` +
          `incarnations ${incarnations.map((x) => `${x.name} ${x.before} -> ${x.seen.join('/')}`).join(', ')}`,
      );
      expect(whole, describeAgents(agents)).toBe(true);
      expect(
        agents.every((a) => a.running),
        describeAgents(agents),
      ).toBe(true);
      for (const x of incarnations) {
        expect(Number.isInteger(x.before), x.name).toBe(true);
        for (const seen of x.seen) expect(seen, x.name).toBeGreaterThan(x.before);
      }
      expect(new Set(named).size).toBe(1);
      expect(NAMES).toContain(named[0]);
    },
    REJOIN_MS + ONE_LEADER_MS + COMMANDS_MS + 10_000,
  );

  it(
    'removes its namespaces',
    async () => {
      const { network: net } = await cluster();
      await killAll(agents);
      for (const a of agents) expect(a.badLines, a.name).toEqual([]);
      await net.destroy();
      const left = (await listNamespaces()).filter((n) => n.startsWith(`${net.prefix}-`));
      expect(left).toEqual([]);
    },
    COMMANDS_MS,
  );
});
