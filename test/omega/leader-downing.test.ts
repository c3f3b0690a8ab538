/**
 * The leader hint with a split-brain resolver (`downing` option): it names only members of the side
 * that stays, and nobody at all once its own side is downed. Real `SplitBrainResolver`s on a virtual
 * clock over one scripted source, which serves both as a SWIM node does.
 */
import { describe, expect, it } from 'vitest';
import { SplitBrainResolver } from '../../src/downing/split-brain-resolver.js';
import type { MemberEvent } from '../../src/membership/events.js';
import type { MemberStateName } from '../../src/membership/member-state.js';
import { LeaderHint } from '../../src/omega/leader-hint.js';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';

const STABLE = 1_000;
const EMPTY = new Uint8Array(0);

/** Members a to e, all alive; `self` is the local one. `answers` says who answers a probe. */
class Source {
  private readonly listeners = new Map<string, Set<(e: MemberEvent) => void>>();
  private readonly states = new Map<string, MemberStateName>();
  constructor(
    readonly self: string,
    readonly answers?: (name: string) => boolean,
  ) {
    for (const name of ['a', 'b', 'c', 'd', 'e']) this.states.set(name, 'alive');
  }
  get localMember() {
    return { name: this.self, incarnation: 1, meta: EMPTY };
  }
  members() {
    return [...this.states].map(([name, state]) => ({ name, state, incarnation: 1, meta: EMPTY }));
  }
  probe(name: string): Promise<boolean> {
    return Promise.resolve(this.answers?.(name) ?? true);
  }
  on(event: string, listener: (e: MemberEvent) => void): void {
    this.listeners.set(event, (this.listeners.get(event) ?? new Set()).add(listener));
  }
  off(event: string, listener: (e: MemberEvent) => void): void {
    this.listeners.get(event)?.delete(listener);
  }
  emit(type: 'alive' | 'suspect', member: string): void {
    const previous = this.states.get(member) ?? 'unknown';
    this.states.set(member, type);
    const event: MemberEvent = {
      type,
      member,
      previous,
      address: '10.0.0.1:7946',
      incarnation: 1,
      atMs: 0,
      wallMs: 0,
      cause: type === 'alive' ? 'refuted' : 'probe-failed',
      confirmations: 0,
      localHealth: 0,
    };
    for (const l of this.listeners.get(type) ?? []) l(event);
  }
}

/** Lets the resolver's probe answers (promises) arrive, then advances virtual time. */
async function advance(clock: VirtualClock, ms: number): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
  clock.advance(ms);
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

function setUp(source: Source) {
  const clock = new VirtualClock();
  const resolver = new SplitBrainResolver(source, {
    strategy: 'keep-majority',
    stableAfterMs: STABLE,
    downAllWhenUnstableMs: false,
    clock,
  });
  const hint = new LeaderHint(source, { clock, stableForMs: 0, downing: resolver });
  const downed: unknown[] = [];
  hint.on('downed', (d) => downed.push(d));
  return { clock, resolver, hint, downed };
}

describe('LeaderHint with a split-brain resolver', () => {
  it('on the side that stays, a member the resolver downs is no candidate, though SWIM still holds it alive', async () => {
    // a does not answer this member's probes; SWIM here has not found it out yet, and names it leader.
    const source = new Source('c', (name) => name !== 'a' && name !== 'e');
    const { clock, resolver, hint } = setUp(source);
    expect(hint.leader).toBe('a');
    source.emit('suspect', 'e');
    await advance(clock, 0);
    expect(resolver.sides().unreachable).toEqual(['a', 'e']);
    expect(hint.leader).toBe('a');
    await advance(clock, STABLE);
    expect(resolver.sides()).toEqual({ reachable: ['c', 'b', 'd'], unreachable: [] }); // itself first
    expect(hint.leader).toBe('b');
    expect(hint.candidates().find((c) => c.name === 'a')?.state).toBe('left');
    // A later life of a (a restart, heard alive again) is a candidate again.
    source.emit('suspect', 'a');
    source.emit('alive', 'a');
    expect(hint.leader).toBe('a');
  });

  it('on a downed side, it names nobody from the decision on, says so once, and stops listening', async () => {
    const source = new Source('a');
    const { clock, resolver, hint, downed } = setUp(source);
    expect(hint.isLeader).toBe(true);
    for (const m of ['c', 'd', 'e']) source.emit('suspect', m);
    await advance(clock, STABLE - 1);
    expect(hint.leader).toBe('a');
    await advance(clock, 1);
    expect(resolver.downedSelf).toBe(true);
    expect(hint.leader).toBeUndefined();
    expect(hint.isLeader).toBe(false);
    expect(downed).toEqual([{ previous: 'a', atMs: clock.now(), wallMs: clock.wallNow() }]);
    // Nothing it hears afterwards brings a hint back.
    for (const m of ['c', 'd', 'e']) source.emit('alive', m);
    await advance(clock, 10 * STABLE);
    expect(hint.leader).toBeUndefined();
    expect(downed).toHaveLength(1);
    expect(resolver.listenerCount('down') + resolver.listenerCount('downed-self')).toBe(0);
  });

  it('without the option, the same cut leaves the minority naming itself', async () => {
    const source = new Source('a');
    const clock = new VirtualClock();
    const hint = new LeaderHint(source, { clock, stableForMs: 0 });
    for (const m of ['c', 'd', 'e']) source.emit('suspect', m);
    await advance(clock, 10 * STABLE);
    expect(hint.leader).toBe('a');
  });

  it('refuses a downing option that is not a resolver, naming it and the value', () => {
    const source = new Source('a');
    expect(() => new LeaderHint(source, { downing: {} as never })).toThrow(
      /^LeaderHint: option downing must be a SplitBrainResolver \(on, off\), got /,
    );
  });
});
