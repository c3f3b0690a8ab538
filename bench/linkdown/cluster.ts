/**
 * The clusters of the link-down bench: `fdkit agent`s and memberlist agents
 * (bench/peers/memberlist-agent), one member per network namespace of a `LossNetwork`
 * (examples/support/netns.ts), all on one bridge. Each member is a `Member` of bench/peers/cluster.ts
 * (`timeout -s KILL` around it, its output turned into events by bench/peers/events.ts), started through
 * `ip netns exec`, which execs the member: the pid under `timeout` is the member's own.
 *
 * Nothing routes from the bench's own namespace into these, so a member's readiness is its own word: the
 * fdkit agent's log line "agent started" (hence `--log-level info`), memberlist's join event about
 * itself, which memberlist reports for the local member once it is bound.
 */
import type { NetnsHost } from '../../examples/support/netns.js';
import { Member } from '../peers/cluster.js';
import { convergedView, type PeerEvent } from '../peers/events.js';
import { sleep } from '../support/report.js';

/** One system under test: fdkit at one profile, or memberlist at its `DefaultLANConfig`. */
export interface Contender {
  /** Its name in tables: `fdkit lan`, `memberlist`. */
  readonly label: string;
  readonly system: 'fdkit' | 'memberlist';
  /** The fdkit agent's `--profile`. */
  readonly profile?: string;
}

/** What starting members needs from outside. */
export interface Launch {
  /** Compiled fdkit CLI (`dist/cli/main.js`). */
  readonly fdkitCli: string;
  /** The built memberlist agent. */
  readonly memberlistAgent: string;
  /** Every member is killed by `timeout` after this many seconds. */
  readonly lifetimeS: number;
}

/** One contender's members, one per host, all on `port`, and everything they said. */
export class NetnsCluster {
  readonly members: Member[] = [];
  readonly events: PeerEvent[] = [];
  readonly names: readonly string[];

  constructor(
    readonly contender: Contender,
    readonly hosts: readonly NetnsHost[],
    readonly port: number,
    private readonly launch: Launch,
  ) {
    // Names of the same length in every cluster, so that messages that carry them weigh the same.
    this.names = hosts.map((_, i) => `member-${String(i + 1).padStart(2, '0')}.bench.local`);
  }

  /**
   * Starts the first member, waits until it serves, then the others at once, each joining the first.
   * Resolves once all are started (not yet converged); throws when the first never serves.
   */
  async start(readyTimeoutMs = 20_000): Promise<void> {
    const seed = this.add(0);
    const deadline = performance.now() + readyTimeoutMs;
    while (!this.ready(seed)) {
      if (seed.exited)
        throw new Error(`${this.contender.label}: ${seed.name} exited: ${seed.stderrTail.join(' | ')}`);
      if (performance.now() > deadline) throw new Error(`${this.contender.label}: ${seed.name} never served`);
      await sleep(20);
    }
    for (let i = 1; i < this.hosts.length; i++) this.add(i);
    await Promise.all(this.members.map((m) => m.resolvePid()));
  }

  private add(index: number): Member {
    const host = this.hosts[index]!;
    const name = this.names[index]!;
    const seed = index === 0 ? undefined : `${this.hosts[0]!.ip}:${this.port}`;
    let command: string;
    let args: string[];
    if (this.contender.system === 'fdkit') {
      command = process.execPath;
      args = [this.launch.fdkitCli, 'agent', '--name', name, '--bind', `${host.ip}:${this.port}`];
      args.push('--profile', this.contender.profile ?? 'lan', '--log-level', 'info');
      // Retried in the background, as the memberlist agent retries its join: with 40 processes starting
      // on two cores, the seed may answer a join late, and a failed first join would end the agent.
      if (seed !== undefined) args.push('--join', seed, '--retry-join');
    } else {
      command = this.launch.memberlistAgent;
      args = ['-name', name, '-bind', host.ip, '-port', String(this.port)];
      args.push('-lifetime', `${Math.ceil(this.launch.lifetimeS)}s`);
      if (seed !== undefined) args.push('-join', seed);
    }
    const member = new Member(
      this.contender.system,
      name,
      this.port,
      host.exec[0]!,
      [...host.exec.slice(1), command, ...args],
      this.launch.lifetimeS,
      (e) => this.events.push(e),
    );
    this.members.push(member);
    return member;
  }

  private ready(m: Member): boolean {
    if (this.contender.system === 'fdkit')
      return m.stderrTail.some((l) => l.includes('"msg":"agent started"'));
    return this.events.some((e) => e.observer === m.name && e.member === m.name && e.kind === 'alive');
  }

  /** Members running now (not killed by the bench, not exited). */
  running(): Member[] {
    return this.members.filter((m) => !m.killed && !m.exited);
  }

  /** True when every member runs and holds every other one alive. */
  converged(): boolean {
    return this.running().length === this.names.length && convergedView(this.events, this.names);
  }

  /** Who sees whom how, for an error message: the members that do not see every other one alive. */
  describe(): string {
    return this.members
      .map((m) => {
        const seen = new Map<string, string>();
        for (const e of this.events) {
          if (e.observer === m.name && (e.kind === 'alive' || e.kind === 'dead' || e.kind === 'left')) {
            seen.set(e.member, e.kind);
          }
        }
        const others = this.names.filter((n) => n !== m.name && seen.get(n) !== 'alive');
        if (others.length === 0 && !m.exited) return '';
        const view = others.map((n) => `${n.slice(0, 9)}=${seen.get(n) ?? '?'}`).join(' ');
        const state = m.exited
          ? ` exited (${m.exitStatus}; stderr: ${m.stderrTail.slice(-3).join(' | ')})`
          : '';
        return `  ${m.name}${state}, not alive to it: ${view || 'none'}`;
      })
      .filter((line) => line !== '')
      .join('\n');
  }

  /** Kills every member and waits (at most `timeoutMs`) until each has exited. */
  async stop(timeoutMs = 5000): Promise<void> {
    for (const m of this.members) {
      m.killed = true;
      m.killNow();
    }
    const deadline = performance.now() + timeoutMs;
    while (this.members.some((m) => !m.exited) && performance.now() < deadline) await sleep(20);
  }
}
