/**
 * The chaos bench's cluster: one `fdkit agent` per network namespace on one bridge
 * (examples/support/netns.ts, under the bench's own prefix), each serving its HTTP API on the namespace's
 * own loopback, which the bench reaches with `curl` run inside the namespace (nothing routes from the
 * bench's namespace into them). It keeps every agent process it ever started, so that every member's
 * view over the whole run can be read back from their event lines (bench/chaos/history.ts).
 */
import { LossNetwork, type NetnsHost, runIn } from '../../examples/support/netns.js';
import { Partition } from '../../examples/support/partition.js';
import { type AgentPlacement, AgentProcess, startCluster, waitUntil } from '../../test/cli/agent-process.js';
import type { Life, Snapshot, ViewChange, ViewState } from './history.js';

/** The namespaces' name prefix: apart from the other benches' and tests' (which clean up their own). */
export const CHAOS_NETNS_PREFIX = 'fdkit-chaos';
/** Every namespace has its own ports: the same two serve every agent. */
const PORT = 7946;
const HTTP = '127.0.0.1:8080';
/** `--log-level info`: the agent's "agent started" line is how a namespaced start is seen. */
const AGENT_ARGS = ['--http', HTTP, '--log-level', 'info'] as const;
/** A curl to a paused agent must not hold the bench up. */
const CURL_TIMEOUT_S = '1';

interface Running {
  readonly agent: AgentProcess;
  readonly fromMs: number;
  toMs: number | null;
  end: 'kill' | 'leave' | null;
}

export class ChaosCluster {
  readonly names: readonly string[];
  readonly network: LossNetwork;
  readonly partition: Partition;
  /**
   * Wall-clock ms that the run's times count from (the agents' event lines carry wall time): the moment
   * before the first agent started.
   */
  readonly zeroWallMs: number;
  private readonly runs: Running[] = [];
  private readonly paused = new Set<number>();

  private constructor(names: readonly string[], network: LossNetwork) {
    this.names = names;
    this.network = network;
    this.partition = new Partition(network);
    this.zeroWallMs = Date.now();
  }

  /** Creates the namespaces and starts one agent in each; on failure removes everything and rethrows. */
  static async start(n: number, log: (line: string) => void): Promise<ChaosCluster> {
    const names = Array.from({ length: n }, (_, i) => `m${i}`);
    const network = await LossNetwork.create(n, CHAOS_NETNS_PREFIX);
    const cluster = new ChaosCluster(names, network);
    log(`namespaces ${network.prefix}-{br,h0..h${n - 1}} on ${network.subnet}`);
    try {
      const agents = await startCluster(names, {
        args: AGENT_ARGS,
        convergeTimeoutMs: 30_000,
        placements: { hosts: network.hosts.map(placement), port: PORT },
      });
      for (const agent of agents) cluster.runs.push({ agent, fromMs: 0, toMs: null, end: null });
    } catch (error) {
      await network.destroy();
      throw error;
    }
    return cluster;
  }

  /** Ms since {@link ChaosCluster.zeroWallMs}. */
  now(): number {
    return Date.now() - this.zeroWallMs;
  }

  private current(i: number): Running | undefined {
    const name = this.names[i]!;
    for (let k = this.runs.length - 1; k >= 0; k--) {
      const r = this.runs[k]!;
      if (r.agent.name === name && r.toMs === null) return r;
    }
    return undefined;
  }

  /** Whether member `i` has an agent running (paused or not). */
  isUp(i: number): boolean {
    return this.current(i)?.agent.running === true;
  }

  pause(i: number): void {
    this.current(i)?.agent.signal('SIGSTOP');
    this.paused.add(i);
  }

  resume(i: number): void {
    this.current(i)?.agent.signal('SIGCONT');
    this.paused.delete(i);
  }

  async kill(i: number): Promise<void> {
    const run = this.current(i);
    if (run === undefined) return;
    run.toMs = this.now();
    run.end = 'kill';
    this.paused.delete(i);
    await run.agent.kill();
  }

  /** Asks member `i` to leave over its API; the agent then exits by itself (bounded wait). */
  async leave(i: number): Promise<void> {
    const run = this.current(i);
    if (run === undefined) return;
    await this.curl(i, ['-X', 'POST', `http://${HTTP}/v1/leave`]).catch(() => '');
    await waitUntil(() => !run.agent.running, 10_000, 50);
    run.toMs = this.now();
    run.end = 'leave';
    // One that did not go within the wait is killed: the schedule goes on either way.
    if (run.agent.running) await run.agent.kill();
  }

  /**
   * Starts member `i` again under the same name, joining through every other running member (retrying:
   * the seeds may be cut off or paused). Resolves once its agent has started, bounded.
   */
  async restart(i: number): Promise<void> {
    const seeds = this.names.flatMap((_, k) =>
      k !== i && this.isUp(k) ? ['--join', `${this.network.hosts[k]!.ip}:${PORT}`] : [],
    );
    const agent = new AgentProcess(
      this.names[i]!,
      PORT,
      [...seeds, '--retry-join', ...AGENT_ARGS],
      placement(this.network.hosts[i]!),
    );
    this.runs.push({ agent, fromMs: this.now(), toMs: null, end: null });
    await waitUntil(() => agent.listening || !agent.running, 10_000, 50);
  }

  /** Every agent process of the run, ended ones included. */
  lives(): Life[] {
    return this.runs.map((r) => ({ name: r.agent.name, fromMs: r.fromMs, toMs: r.toMs, end: r.end }));
  }

  /** Every view change every agent reported, in time order. */
  changes(): ViewChange[] {
    return this.runs
      .flatMap((r) =>
        r.agent.events
          .filter((e) => e.line.event !== 'update')
          .map((e) => ({
            atMs: e.line.t - this.zeroWallMs,
            observer: e.line.node,
            member: e.line.member,
            state: e.line.event as ViewState,
            incarnation: e.line.incarnation,
            cause: e.line.cause,
          })),
      )
      .sort((a, b) => a.atMs - b.atMs);
  }

  private curl(i: number, args: readonly string[]): Promise<string> {
    const host = this.network.hosts[i]!;
    return runIn(host, ['curl', '-s', '-f', '-m', CURL_TIMEOUT_S, ...args]).then((r) => r.stdout);
  }

  /** Member `i`'s leader hint, or null when it does not answer. */
  async leader(i: number): Promise<string | null> {
    try {
      const body = JSON.parse(await this.curl(i, [`http://${HTTP}/v1/leader`])) as { leader?: unknown };
      return typeof body.leader === 'string' ? body.leader : null;
    } catch {
      return null;
    }
  }

  /** What every running, unpaused member holds alive (from its event lines) and names leader now. */
  async snapshot(): Promise<Snapshot> {
    const up = this.names.map((_, i) => i).filter((i) => this.isUp(i));
    const leaders = await Promise.all(up.map((i) => (this.paused.has(i) ? null : this.leader(i))));
    const atMs = this.now();
    // A member killed or gone while the leaders were asked is left out: it is no longer live.
    const still = up.flatMap((i, k) => {
      const run = this.current(i);
      return run?.agent.running === true ? [{ i, agent: run.agent, leader: leaders[k] ?? null }] : [];
    });
    const views = still.map(({ i, agent, leader }) => {
      const alive = this.names.filter((m, j) => j === i || agent.stateOf(m) === 'alive');
      return { observer: this.names[i]!, alive, leader };
    });
    return { atMs, live: views.map((v) => v.observer), views };
  }

  /** Stderr tails of the agents that exited on their own, for the report. */
  crashes(): string[] {
    return this.runs
      .filter((r) => r.end === null && !r.agent.running)
      .map((r) => `${r.agent.name}: ${r.agent.describe()}`);
  }

  /** Kills every agent and removes the namespaces. */
  async stop(): Promise<void> {
    for (const i of this.paused) this.resume(i);
    await Promise.all(this.runs.map((r) => r.agent.kill()));
    await this.network.destroy();
  }
}

function placement(h: NetnsHost): AgentPlacement {
  return { netns: h.netns, exec: h.exec, host: h.ip };
}
