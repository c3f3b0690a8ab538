/**
 * One view over the two kinds of member of a mixed cluster: the Go memberlist agent
 * (test/wire/memberlist/go-agent.ts) and `fdkit agent --wire memberlist` (test/cli/agent-process.ts).
 * Each reports what it holds of the others in its own words (the Go agent through memberlist's
 * EventDelegate, whose `leave` carries `dead` or `left`; fdkit through its event lines); this module maps
 * both to the same states, so that a test can ask every member the same question.
 */
import { performance } from 'node:perf_hooks';
import { AgentProcess, freePort, sleep, waitUntil } from '../../cli/agent-process.js';
import { GoAgent, type GoAgentOptions } from './go-agent.js';

/** What one member holds of another. */
export type HeldState = 'alive' | 'suspect' | 'dead' | 'left';

/** A member's first `dead` or `left` report of another. */
export interface Departure {
  /** `performance.now()` of the test process when it read the line. */
  readonly at: number;
  readonly state: 'dead' | 'left';
  /** fdkit's cause; the Go agent reports none. */
  readonly cause: string | undefined;
}

/** A running member of either kind. */
export interface MixedMember {
  readonly kind: 'go' | 'fdkit';
  readonly name: string;
  readonly address: string;
  readonly running: boolean;
  /** The state it last reported for `member`, from its event stream. */
  held(member: string): HeldState | undefined;
  /**
   * The state it holds now, asked of it: the Go agent lists memberlist's live members (which tells a
   * suspect from an alive one, which its EventDelegate does not), fdkit's events already do.
   */
  holdsNow(member: string): Promise<HeldState | undefined>;
  /** Its first `dead` or `left` report about `member` read at or after `since`. */
  departure(member: string, since: number): Departure | undefined;
  /** Its suspicions read at or after `since`, as printed (the Go agent reports only its own failed probes). */
  suspicions(since: number): string[];
  /** Its first suspicion of `member` read at or after `since` (for the Go agent: its own failed probe). */
  firstSuspicion(member: string, since: number): { at: number; cause: string | undefined } | undefined;
  signal(signal: NodeJS.Signals): void;
  /** Kills it (continuing it first) and waits, bounded, for its end. */
  kill(): Promise<void>;
  /** What it printed, for a failure message. */
  describe(): string;
}

const HELD: readonly string[] = ['alive', 'suspect', 'dead', 'left'];

/** A Go memberlist agent. */
export class GoMember implements MixedMember {
  readonly kind = 'go';
  constructor(readonly agent: GoAgent) {}
  get name(): string {
    return this.agent.name;
  }
  get address(): string {
    return this.agent.address;
  }
  get running(): boolean {
    return this.agent.running;
  }
  held(member: string): HeldState | undefined {
    const s = this.agent.stateOf(member);
    return s !== undefined && HELD.includes(s) ? (s as HeldState) : undefined;
  }
  async holdsNow(member: string): Promise<HeldState | undefined> {
    let listed: Awaited<ReturnType<GoAgent['members']>>;
    try {
      listed = await this.agent.members(2000);
    } catch {
      // Stopped, busy or gone: it holds nothing it can tell.
      return undefined;
    }
    const found = listed.find((m) => m.name === member);
    // memberlist lists only live members: a missing one is dead or left, as its last leave said.
    if (found === undefined) return this.held(member);
    return HELD.includes(found.state) ? (found.state as HeldState) : undefined;
  }
  departure(member: string, since: number): Departure | undefined {
    for (const r of this.agent.events) {
      const e = r.event;
      if (r.at >= since && e.event === 'leave' && e.member === member) {
        if (e.state === 'dead' || e.state === 'left') return { at: r.at, state: e.state, cause: undefined };
      }
    }
    return undefined;
  }
  suspicions(since: number): string[] {
    return this.agent.events
      .filter((r) => r.at >= since && r.event.event === 'suspect')
      .map((r) => `${this.name}: ${JSON.stringify(r.event)}`);
  }
  firstSuspicion(member: string, since: number): { at: number; cause: string | undefined } | undefined {
    const r = this.agent.events.find(
      (x) => x.at >= since && x.event.event === 'suspect' && x.event.member === member,
    );
    return r === undefined ? undefined : { at: r.at, cause: undefined };
  }
  signal(signal: NodeJS.Signals): void {
    this.agent.signal(signal);
  }
  kill(): Promise<void> {
    return this.agent.kill();
  }
  describe(): string {
    return this.agent.describe();
  }
}

/** An `fdkit agent`. */
export class FdkitMember implements MixedMember {
  readonly kind = 'fdkit';
  constructor(readonly agent: AgentProcess) {}
  get name(): string {
    return this.agent.name;
  }
  get address(): string {
    return this.agent.address;
  }
  get running(): boolean {
    return this.agent.running;
  }
  held(member: string): HeldState | undefined {
    const s = this.agent.stateOf(member);
    return s === undefined || s === 'update' ? undefined : s;
  }
  holdsNow(member: string): Promise<HeldState | undefined> {
    return Promise.resolve(this.held(member));
  }
  departure(member: string, since: number): Departure | undefined {
    const r = this.agent.events.find(
      (e) =>
        e.at >= since && e.line.member === member && (e.line.event === 'dead' || e.line.event === 'left'),
    );
    if (r === undefined) return undefined;
    return { at: r.at, state: r.line.event === 'dead' ? 'dead' : 'left', cause: r.line.cause };
  }
  suspicions(since: number): string[] {
    return this.agent.events
      .filter((r) => r.at >= since && r.line.event === 'suspect')
      .map((r) => `${this.name}: ${JSON.stringify(r.line)}`);
  }
  firstSuspicion(member: string, since: number): { at: number; cause: string | undefined } | undefined {
    const r = this.agent.first(member, 'suspect', since);
    return r === undefined ? undefined : { at: r.at, cause: r.line.cause };
  }
  signal(signal: NodeJS.Signals): void {
    if (this.agent.running) this.agent.signal(signal);
  }
  kill(): Promise<void> {
    return this.agent.kill();
  }
  describe(): string {
    return this.agent.describe();
  }
}

/** Starts a Go agent (memberlist's DefaultLANConfig unless `options` says otherwise). */
export async function startGo(options: GoAgentOptions): Promise<GoMember> {
  const agent = await GoAgent.start(options);
  const join = agent.ready?.error;
  if (join !== undefined) {
    await agent.kill();
    throw new Error(`${options.name} could not join: ${join}`);
  }
  return new GoMember(agent);
}

/**
 * Starts `fdkit agent --wire memberlist` joining `seed`, and waits (bounded) until it accepts
 * connections; starts again on another port when the one it got was taken meanwhile (three attempts).
 */
export async function startFdkit(
  name: string,
  seed: string,
  args: readonly string[] = [],
): Promise<FdkitMember> {
  for (let attempt = 1; ; attempt++) {
    const agent = new AgentProcess(name, await freePort(), [
      '--wire',
      'memberlist',
      '--join',
      seed,
      '--log-level',
      'warn',
      ...args,
    ]);
    await waitUntil(() => agent.listening || !agent.running, 15_000, 20);
    if (agent.listening && agent.running) return new FdkitMember(agent);
    const taken = agent.stderrLines.some((l) => l.includes('already in use'));
    const description = agent.describe();
    await agent.kill();
    if (!taken || attempt >= 3) throw new Error(`fdkit agent ${name} did not start:\n${description}`);
  }
}

/** True when every member holds every other one alive, by what it reported. */
export function converged(members: readonly MixedMember[]): boolean {
  return members.every((a) => members.every((b) => a === b || a.held(b.name) === 'alive'));
}

/**
 * Asks every member until each holds every one of `subjects` (other than itself) alive now, or
 * `timeoutMs` passed; true when they did. Bounded: at most `timeoutMs` plus one round of questions.
 */
export async function allHoldAliveNow(
  members: readonly MixedMember[],
  subjects: readonly string[],
  timeoutMs: number,
  stepMs = 200,
): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const views = await Promise.all(
      members.flatMap((m) => subjects.filter((s) => s !== m.name).map((s) => m.holdsNow(s))),
    );
    if (views.every((v) => v === 'alive')) return true;
    if (performance.now() >= deadline) return false;
    await sleep(stepMs);
  }
}

/** Every member's view of the others, for a failure message. */
export function describeMembers(members: readonly MixedMember[]): string {
  return members
    .map((m) => {
      const views = members
        .filter((o) => o !== m)
        .map((o) => `${o.name}=${m.held(o.name) ?? '?'}`)
        .join(' ');
      return `${m.kind} ${m.name} sees ${views}\n${m.describe()}`;
    })
    .join('\n');
}
