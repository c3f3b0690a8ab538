/**
 * Mixed clusters of Go memberlist agents (`go-agent.ts`) and in-process fdkit nodes on memberlist's wire,
 * on loopback, for `mixed-node.system.test.ts`: starting both kinds, waiting (bounded) until each side
 * holds the other alive, and ending everything a test started.
 */
import { createNode, type SwimNode } from '../../../src/node/node.js';
import type { NodeOptions } from '../../../src/node/node-options.js';
import type { MemberEvent, MessageEvent } from '../../../src/swim/events.js';
import { holds, poll } from '../../support/node-harness.js';
import { GoAgent, type GoAgentOptions, startGoCluster } from './go-agent.js';

/** An fdkit node of a mixed cluster, with what it emitted. */
export interface FdkitMember {
  readonly name: string;
  readonly node: SwimNode;
  readonly address: string;
  readonly updates: MemberEvent[];
  readonly messages: MessageEvent[];
}

const goAgents: GoAgent[] = [];
const fdkitNodes: SwimNode[] = [];

/** Kills every Go agent and shuts down every fdkit node started since the last call. */
export async function endAll(): Promise<void> {
  await Promise.all([
    ...goAgents.splice(0).map((a) => a.kill()),
    ...fdkitNodes.splice(0).map((n) => n.shutdown()),
  ]);
}

/** A Go cluster of `names`, ended by {@link endAll}. */
export async function goCluster(
  names: readonly string[],
  options: Omit<GoAgentOptions, 'name' | 'join'> = {},
): Promise<GoAgent[]> {
  const agents = await startGoCluster(names, options);
  goAgents.push(...agents);
  return agents;
}

/** One Go agent, ended by {@link endAll}. */
export async function goAgent(options: GoAgentOptions): Promise<GoAgent> {
  const agent = await GoAgent.start(options);
  goAgents.push(agent);
  return agent;
}

/** Starts an fdkit node on memberlist's wire on a free loopback port (not joined), ended by {@link endAll}. */
export async function fdkitMember(name: string, options: Partial<NodeOptions> = {}): Promise<FdkitMember> {
  const node = createNode({
    name,
    wire: 'memberlist',
    bind: '127.0.0.1:0',
    profile: 'memberlist-lan',
    ...options,
  });
  fdkitNodes.push(node);
  const updates: MemberEvent[] = [];
  const messages: MessageEvent[] = [];
  node.on('update', (e) => updates.push(e));
  node.on('message', (e) => messages.push(e));
  await node.start();
  return { name, node, address: node.localAddress, updates, messages };
}

/** True when `node` holds every one of `names` alive. */
export function fdkitHolds(member: FdkitMember, names: readonly string[]): boolean {
  return holds(member.node, names, 'alive');
}

/** True when `agent`'s EventDelegate last reported every one of `names` alive. */
export function goHolds(agent: GoAgent, names: readonly string[]): boolean {
  return names.every((n) => n === agent.name || agent.stateOf(n) === 'alive');
}

/** Waits (at most `timeoutMs`) until every member of both kinds holds every other alive. */
export async function converged(
  agents: readonly GoAgent[],
  members: readonly FdkitMember[],
  timeoutMs = 20_000,
): Promise<void> {
  const names = [...agents.map((a) => a.name), ...members.map((m) => m.name)];
  await poll(
    () => agents.every((a) => goHolds(a, names)) && members.every((m) => fdkitHolds(m, names)),
    () =>
      `the mixed cluster to converge:\n${agents.map((a) => a.describe()).join('\n')}\n${members
        .map(
          (m) =>
            `  ${m.name}: ${JSON.stringify(Object.fromEntries(m.node.members().map((x) => [x.name, x.state])))}`,
        )
        .join('\n')}`,
    timeoutMs,
  );
}

/**
 * `goNames` Go agents (the first the seed), then one fdkit node per `fdkitNames` joining the first agent,
 * and waits until all hold all alive.
 */
export async function mixedCluster(
  goNames: readonly string[],
  fdkitNames: readonly string[],
  options: { readonly keys?: readonly Uint8Array[]; readonly fdkit?: Partial<NodeOptions> } = {},
): Promise<{ agents: GoAgent[]; members: FdkitMember[] }> {
  const agents = await goCluster(goNames, options.keys === undefined ? {} : { keys: options.keys });
  const members: FdkitMember[] = [];
  for (const name of fdkitNames) {
    const member = await fdkitMember(name, options.fdkit);
    // Every member joined at once (a push-pull each): the gossip of one join may miss a member at five,
    // which then learns it only at the next push-pull, 30 s on.
    const seeds = [...agents.map((a) => a.address), ...members.map((m) => m.address)];
    members.push(member);
    await member.node.join(seeds);
  }
  await converged(agents, members);
  return { agents, members };
}

/**
 * What memberlist 0.2.2 logs (net.go, state.go) when it cannot read or will not take what it received:
 * undecodable or unsupported messages, bad checksums, failed decryption or merges, alive statements with
 * wrong versions, and a refuted alive statement (a relay that changed its own metadata or vector). A
 * crashed member's refused connections are not among them: those are the network's answer, not ours.
 */
const GO_COMPLAINTS =
  /decode|not supported|invalid msgType|invalid checksum|truncated|decrypt|failed to receive|read remote state|push\/pull merge|Ignoring an alive|Vsn is not present|Refuting an alive|Conflicting address/i;

/** Go's stderr lines that say memberlist could not read or would not take something it received. */
export function goComplaints(agent: GoAgent): string[] {
  return agent.stderrLines.filter((l) => GO_COMPLAINTS.test(l));
}

/** Waits until each of `members` has run `periods` more probe periods: protocol time, not a fixed sleep. */
export async function probePeriods(members: readonly FdkitMember[], periods: number): Promise<void> {
  const start = members.map((m) => m.node.counters().probes);
  await poll(
    () => members.every((m, i) => m.node.counters().probes >= start[i]! + periods),
    `${periods} probe periods`,
    periods * 5000,
  );
}
