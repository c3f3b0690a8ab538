/**
 * One cluster (five or six members) of the mixed bench on 127.0.0.1: Go memberlist agents (test/wire/memberlist/
 * go-agent.ts, memberlist 0.2.2 at `DefaultLANConfig()`) and `fdkit agent --wire memberlist` processes
 * (test/cli/agent-process.ts, from dist/), the seed first and the others joining it. Every process is
 * one this module started, ended by its own handle (PID); both harnesses also kill what is left when the
 * bench process exits. Every wait is bounded.
 */
import { performance } from 'node:perf_hooks';
import { AgentProcess, freePort, waitUntil } from '../../test/cli/agent-process.js';
import { GoAgent } from '../../test/wire/memberlist/go-agent.js';
import type { MemberOf, MixedEvent } from './analysis.js';
import { type MixedCase, memberNames } from './cases.js';
import { fromFdkit, fromGo } from './events.js';

/** How the members run. */
export interface Launch {
  /** `fdkit agent --profile`. */
  readonly profile: string;
  /** The Go agents' `-lifetime`: they end on their own past the bench's hard timeout. */
  readonly lifetimeMs: number;
  /** How long the seed may take to listen and the others to join. */
  readonly startTimeoutMs: number;
}

type Running =
  | { readonly name: string; readonly implementation: 'go'; readonly agent: GoAgent }
  | { readonly name: string; readonly implementation: 'fdkit'; readonly agent: AgentProcess };

/** A member that did not start, or a cluster that did not form: the repetition may start again. */
export class NotFormed extends Error {}

export class MixedCluster {
  private constructor(
    readonly spec: MixedCase,
    private readonly members: readonly Running[],
  ) {}

  /** Starts `spec`'s members, the seed first; throws {@link NotFormed} (after killing them) when one fails. */
  static async start(spec: MixedCase, launch: Launch): Promise<MixedCluster> {
    const names = memberNames(spec);
    const started: Running[] = [];
    const startOne = async (i: number, seed: string | undefined): Promise<Running> => {
      const name = names[i]!;
      if (spec.members[i] === 'go') {
        const agent = await GoAgent.start({
          name,
          ...(seed === undefined ? {} : { join: [seed] }),
          profile: 'lan',
          lifetimeMs: launch.lifetimeMs,
          readyTimeoutMs: launch.startTimeoutMs,
        });
        started.push({ name, implementation: 'go', agent });
        const error = agent.ready?.error;
        if (error !== undefined) throw new NotFormed(`${name} did not join ${seed}: ${error}`);
        return { name, implementation: 'go', agent };
      }
      const args = ['--wire', 'memberlist', '--profile', launch.profile, '--log-level', 'warn'];
      const agent = new AgentProcess(
        name,
        await freePort(),
        seed === undefined ? args : [...args, '--join', seed],
      );
      started.push({ name, implementation: 'fdkit', agent });
      // The seed must listen before anyone joins it; a joiner exits when its join fails.
      if (
        seed === undefined &&
        !(await waitUntil(() => agent.listening || !agent.running, launch.startTimeoutMs, 50))
      ) {
        throw new NotFormed(`${name} did not listen within ${launch.startTimeoutMs} ms`);
      }
      if (!agent.running) throw new NotFormed(`${name} exited:\n${agent.describe()}`);
      return { name, implementation: 'fdkit', agent };
    };
    try {
      const seed = await startOne(0, undefined);
      const address = seed.agent.address;
      const others = await Promise.all(names.slice(1).map((_, i) => startOne(i + 1, address)));
      return new MixedCluster(spec, [seed, ...others]);
    } catch (error) {
      await Promise.all(started.map((m) => m.agent.kill()));
      if (error instanceof NotFormed) throw error;
      throw new NotFormed(error instanceof Error ? error.message : String(error));
    }
  }

  /** The members and their implementations. */
  get roster(): MemberOf[] {
    return this.members.map((m) => ({ name: m.name, implementation: m.implementation }));
  }

  /** The member the case kills. */
  get victim(): MemberOf {
    return this.roster[this.spec.victim]!;
  }

  private stateOf(observer: Running, member: string): string | undefined {
    return observer.agent.stateOf(member);
  }

  /** True when every member holds every other alive. */
  converged(): boolean {
    return this.members.every((a) =>
      this.members.every((b) => a === b || this.stateOf(a, b.name) === 'alive'),
    );
  }

  /** True while every member runs. */
  allRunning(): boolean {
    return this.members.every((m) => m.agent.running);
  }

  /** Every membership event of every member so far. */
  events(): MixedEvent[] {
    return this.members.flatMap((m): MixedEvent[] =>
      m.implementation === 'go'
        ? m.agent.events.flatMap((r) => fromGo(m.name, r.at, r.event) ?? [])
        : m.agent.events.flatMap((r) => fromFdkit(m.name, r.at, r.line) ?? []),
    );
  }

  /** SIGKILL to the case's victim; returns the bench time just before the signal. */
  killVictim(): number {
    const m = this.members[this.spec.victim]!;
    const at = performance.now();
    if (m.implementation === 'go') m.agent.kill9();
    else m.agent.signal('SIGKILL');
    return at;
  }

  /** Kills every member (bounded) and waits for their ends. */
  async stop(): Promise<void> {
    await Promise.all(this.members.map((m) => m.agent.kill()));
  }

  /** What each member sees, for a failure message. */
  describe(): string {
    return this.members
      .map((m) => {
        const views = this.members
          .filter((o) => o !== m)
          .map((o) => `${o.name}=${this.stateOf(m, o.name) ?? '?'}`)
          .join(' ');
        return `  ${m.name} (${m.implementation}${m.agent.running ? '' : ', exited'}) sees ${views}`;
      })
      .join('\n');
  }
}
