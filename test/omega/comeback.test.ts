/**
 * The leader hint's comeback window (`LeaderCore.selfRefuted`, on a virtual clock): a member that learns
 * the others held it suspect, dead or left waits out its own comeback as they do, a tenth longer, naming
 * the member that took over meanwhile; alone, or at a cold start, it names itself at once as before.
 */
import { describe, expect, it } from 'vitest';
import type { MemberEvent } from '../../src/membership/events.js';
import { LeaderBaseline, type LeaderChange, LeaderCore } from '../../src/omega/leader-core.js';
import { LeaderHint, type LeaderSourceEvent, type MembershipSource } from '../../src/omega/leader-hint.js';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';
import { memberEvent } from '../support/member-event.js';

const S = 10_000;
/** The local member's own wait: stableForMs and a tenth. */
const OWN_WAIT = 11_000;

function core(self: string, known: string[], clock = new VirtualClock(), stableForMs = S) {
  const changes: LeaderChange[] = [];
  const c = new LeaderCore(
    { self: { name: self }, stableForMs },
    clock,
    (change) => changes.push(change),
    known.map((name) => ({ name, state: 'alive' as const })),
  );
  const event = (type: MemberEvent['type'], member: string, previous: MemberEvent['previous']): void =>
    c.observe({ type, member, previous });
  const log = (): string[] => changes.map((x) => `${x.atMs} ${x.leader} ${x.cause}`);
  return { clock, core: c, changes, event, log };
}

describe('LeaderCore: a member that comes back waits for itself', () => {
  it('after a pause: yields to the member that took over, and names itself only after stableForMs and a tenth', () => {
    const h = core('n0', ['n1', 'n2']);
    expect(h.core.leader).toBe('n0');
    h.clock.advance(1000);
    h.core.selfRefuted();
    expect(h.core.leader).toBe('n1');
    expect(h.core.candidates()[0]).toMatchObject({ name: 'n0', state: 'alive', stable: false });
    h.clock.advance(OWN_WAIT - 1);
    expect(h.core.leader).toBe('n1');
    h.clock.advance(1);
    expect(h.core.leader).toBe('n0');
    expect(h.core.candidates()[0]).toMatchObject({ name: 'n0', stable: true });
    expect(h.log()).toEqual(['1000 n1 self-comeback', '12000 n0 stable-better']);
    expect(h.core.epoch).toBe(2);
  });

  it('a new accusation during the wait starts it over', () => {
    const h = core('n0', ['n1']);
    h.core.selfRefuted();
    h.clock.advance(5000);
    h.core.selfRefuted();
    h.clock.advance(OWN_WAIT - 1);
    expect(h.core.leader).toBe('n1');
    h.clock.advance(1);
    expect(h.log()).toEqual(['0 n1 self-comeback', '16000 n0 stable-better']);
  });

  it('after a restart: a fresh hint told of its older life before it hears of anyone yields to the first member it hears of', () => {
    const h = core('n0', []);
    h.core.selfRefuted();
    // Alone, it names itself: there is nobody else to name.
    expect(h.core.leader).toBe('n0');
    h.clock.advance(2);
    h.event('alive', 'n2', 'unknown');
    expect(h.core.leader).toBe('n2');
    h.event('alive', 'n1', 'unknown');
    expect(h.core.leader).toBe('n1');
    h.clock.advance(OWN_WAIT - 3);
    expect(h.core.leader).toBe('n1');
    h.clock.advance(1);
    expect(h.log()).toEqual(['2 n2 self-comeback', '2 n1 stable-better', '11000 n0 stable-better']);
  });

  it('after a restart: a fresh hint that heard of the members first yields when told of its older life', () => {
    const h = core('n0', []);
    h.event('alive', 'n1', 'unknown');
    h.event('alive', 'n2', 'unknown');
    expect(h.core.leader).toBe('n0');
    h.clock.advance(3);
    h.core.selfRefuted();
    expect(h.core.leader).toBe('n1');
    h.clock.advance(OWN_WAIT);
    expect(h.log()).toEqual(['3 n1 self-comeback', '11003 n0 stable-better']);
  });

  it('yields only to stable members, follows the lead as usual meanwhile, and names itself when none is left', () => {
    const h = core('n0', ['n1', 'n2', 'n3']);
    h.event('suspect', 'n1', 'alive');
    h.event('alive', 'n1', 'suspect'); // a comeback of n1's own, waiting out its S
    h.core.selfRefuted();
    expect(h.core.leader).toBe('n2');
    h.event('dead', 'n2', 'alive');
    expect(h.core.leader).toBe('n3');
    h.event('left', 'n3', 'alive');
    // Nobody else is stable: it names itself rather than nobody, while still waiting for itself.
    expect(h.core.leader).toBe('n0');
    h.clock.advance(S);
    // n1's wait ends first: the first stable member takes the lead from a member waiting for itself.
    expect(h.core.leader).toBe('n1');
    h.clock.advance(OWN_WAIT - S);
    expect(h.log()).toEqual([
      '0 n2 self-comeback',
      '0 n3 leader-dead',
      '0 n0 leader-left',
      '10000 n1 self-comeback',
      '11000 n0 stable-better',
    ]);
  });

  it('a member that is not the leader only waits: its wait changes nothing until it outranks the leader', () => {
    const h = core('n5', ['n1', 'n2']);
    h.core.selfRefuted();
    h.clock.advance(OWN_WAIT);
    expect(h.core.leader).toBe('n1');
    expect(h.changes).toEqual([]);
  });

  it('a lone member names itself at once and throughout; stableForMs 0 and stop() turn it off', () => {
    const lone = core('solo', []);
    lone.core.selfRefuted();
    lone.clock.advance(OWN_WAIT);
    expect([lone.core.leader, lone.changes]).toEqual(['solo', []]);
    const off = core('n0', ['n1'], new VirtualClock(), 0);
    off.core.selfRefuted();
    expect([off.core.leader, off.changes]).toEqual(['n0', []]);
    const stopped = core('n0', ['n1']);
    stopped.core.stop();
    stopped.core.selfRefuted();
    stopped.clock.advance(OWN_WAIT);
    expect([stopped.core.leader, stopped.changes]).toEqual(['n0', []]);
  });

  it('a cold start names the top member at once, on every member, with no wait', () => {
    const names = ['n0', 'n1', 'n2', 'n3'];
    const clock = new VirtualClock();
    const baseline = new LeaderBaseline(names.map((name) => ({ name })));
    const cores = names.map(
      (self) => new LeaderCore({ self: { name: self }, stableForMs: S }, clock, () => {}, baseline),
    );
    expect(cores.map((c) => c.leader)).toEqual(['n0', 'n0', 'n0', 'n0']);
    // Members that learn of each other by their joins agree at once too.
    const fresh = names.map((self) => core(self, [], clock));
    for (const f of fresh)
      for (const other of names) if (other !== f.core.self) f.event('alive', other, 'unknown');
    expect(fresh.map((f) => [f.core.leader, f.core.epoch])).toEqual([
      ['n0', 0],
      ['n0', 1],
      ['n0', 1],
      ['n0', 1],
    ]);
  });
});

describe('LeaderCore: the member that took over and the member that comes back', () => {
  // n0 is suspected at 0 and refutes at 100; n1 hears the refutation `delay` ms later (its
  // dissemination) and waits stableForMs from then. One ms at a time, never both name themselves.
  it.each([0, 1, 400, 999])(
    'never both name themselves, with the refutation reaching n1 %d ms after it was made',
    (delay) => {
      const clock = new VirtualClock();
      const n0 = core('n0', ['n1', 'n2'], clock);
      const n1 = core('n1', ['n0', 'n2'], clock);
      n1.event('suspect', 'n0', 'alive');
      clock.advance(100);
      n0.core.selfRefuted();
      clock.advance(delay);
      n1.event('alive', 'n0', 'suspect');
      let both = 0;
      for (let t = 0; t < 15_000; t++) {
        clock.advance(1);
        if (n0.core.leader === 'n0' && n1.core.leader === 'n1') both++;
      }
      expect(both).toBe(0);
      // The member that took over keeps the lead through its wait, then yields; n0 takes it after its own.
      expect(n1.log()).toEqual(['0 n1 leader-suspect', `${100 + delay + S} n0 stable-better`]);
      expect(n0.log()).toEqual(['100 n1 self-comeback', `${100 + OWN_WAIT} n0 stable-better`]);
    },
  );
});

/** A source driven by hand, emitting what a SWIM node would. */
class Source implements MembershipSource {
  readonly listeners = new Map<string, Set<(e: LeaderSourceEvent) => void>>();
  on(event: string, listener: (e: LeaderSourceEvent) => void): void {
    this.listeners.set(event, (this.listeners.get(event) ?? new Set()).add(listener));
  }
  off(event: string, listener: (e: LeaderSourceEvent) => void): void {
    this.listeners.get(event)?.delete(listener);
  }
  emit(event: LeaderSourceEvent): void {
    for (const l of this.listeners.get(event.type) ?? []) l(event);
  }
}

describe('LeaderHint: the refuted event of its source', () => {
  it('yields on the local member refutation, and subscribes to it with the member events', () => {
    const source = new Source();
    const clock = new VirtualClock();
    const hint = new LeaderHint(source, { self: { name: 'n0' }, clock, stableForMs: S });
    source.emit(memberEvent('alive', 'n1', 'unknown', { address: '10.0.0.2:7946' }));
    expect(hint.isLeader).toBe(true);
    source.emit({
      type: 'refuted',
      member: 'n0',
      accuser: 'n1',
      held: 'suspect',
      incarnation: 1,
      atMs: 0,
      wallMs: 0,
    });
    expect([hint.leader, hint.isLeader]).toEqual(['n1', false]);
    clock.advance(OWN_WAIT);
    expect(hint.isLeader).toBe(true);
    expect(source.listeners.get('refuted')?.size).toBe(1);
    hint.stop();
    expect(source.listeners.get('refuted')?.size).toBe(0);
  });
});
