/**
 * BusyPeers, which members said they are busy: how long a statement holds (from its arrival, renewed by
 * each one, old or new), which statements are newer and so worth passing on (serial-number order over
 * 32 bits, per member), the packet straight from a member that ends its mark, and what `count`, `busy()`
 * and `forget` see.
 */
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';
import { BusyPeers } from '../../src/swim/busy-peers.js';

const HOLD = 5000;
const B = 1;
const C = 2;

function peers() {
  const clock = new VirtualClock({ startMs: 1000 });
  return { clock, peers: new BusyPeers(clock) };
}

describe('BusyPeers: how long a statement holds', () => {
  it('marks the member for BUSY_PEER_HOLD_MS from its arrival: busy at +4999, not at +5000', () => {
    const { clock, peers: p } = peers();
    expect(p.isBusy(B)).toBe(false);
    p.statement(B, 1);
    expect(p.isBusy(B)).toBe(true);
    expect(p.isBusy(C)).toBe(false);
    clock.advanceTo(1000 + HOLD - 1);
    expect(p.isBusy(B)).toBe(true);
    clock.advanceTo(1000 + HOLD);
    expect(p.isBusy(B)).toBe(false);
  });

  it('each statement renews the hold from its own arrival, an old or repeated one too', () => {
    // The busy member repeats the same number on all its packets: each one is news that it still is.
    const { clock, peers: p } = peers();
    p.statement(B, 7);
    clock.advanceTo(4000);
    expect(p.statement(B, 7)).toBe(false);
    clock.advanceTo(4000 + HOLD - 1);
    expect(p.isBusy(B)).toBe(true);
    expect(p.statement(B, 3)).toBe(false);
    clock.advanceTo(4000 + 2 * HOLD - 2);
    expect(p.isBusy(B)).toBe(true);
    clock.advanceTo(4000 + 2 * HOLD - 1);
    expect(p.isBusy(B)).toBe(false);
  });

  it('an expired mark comes back with the next statement', () => {
    const { clock, peers: p } = peers();
    p.statement(B, 1);
    clock.advance(HOLD);
    expect(p.isBusy(B)).toBe(false);
    p.statement(B, 1);
    expect(p.isBusy(B)).toBe(true);
  });
});

describe('BusyPeers: which statements are newer', () => {
  it('the first from a member is newer, whatever its number; then only a higher number is', () => {
    const { peers: p } = peers();
    expect(p.statement(B, 0)).toBe(true);
    expect(p.statement(B, 0)).toBe(false);
    expect(p.statement(B, 5)).toBe(true);
    expect(p.statement(B, 5)).toBe(false);
    expect(p.statement(B, 4)).toBe(false);
    // An older one does not lower the bar.
    expect(p.statement(B, 5)).toBe(false);
    expect(p.statement(B, 6)).toBe(true);
  });

  it('numbers are kept per member', () => {
    const { peers: p } = peers();
    expect(p.statement(B, 9)).toBe(true);
    expect(p.statement(C, 2)).toBe(true);
    expect(p.statement(C, 3)).toBe(true);
    expect(p.statement(B, 9)).toBe(false);
  });

  it('wraps at 2^32: 0 follows 0xffffffff, and 0xffffffff is older than 0', () => {
    const { peers: p } = peers();
    expect(p.statement(B, 0xffff_fffe)).toBe(true);
    expect(p.statement(B, 0xffff_ffff)).toBe(true);
    expect(p.statement(B, 0)).toBe(true);
    expect(p.statement(B, 0xffff_ffff)).toBe(false);
    expect(p.statement(B, 1)).toBe(true);
  });

  it('serial-number order: up to 2^31 − 1 ahead is newer, 2^31 ahead is not', () => {
    const ahead = (last: number, by: number): boolean => {
      const { peers: p } = peers();
      p.statement(B, last);
      return p.statement(B, (last + by) >>> 0);
    };
    expect(ahead(0, 0x7fff_ffff)).toBe(true);
    expect(ahead(0, 0x8000_0000)).toBe(false);
    expect(ahead(0xffff_fff0, 0x7fff_ffff)).toBe(true);
    expect(ahead(0xffff_fff0, 0x8000_0000)).toBe(false);
  });
});

describe('BusyPeers: a packet straight from the member', () => {
  it('without its statement ends the mark at once; with it, leaves the mark', () => {
    const { clock, peers: p } = peers();
    p.statement(B, 1);
    p.statement(C, 1);
    p.heardFrom(B, true);
    expect(p.isBusy(B)).toBe(true);
    clock.advance(HOLD - 1);
    expect(p.isBusy(B)).toBe(true); // heardFrom(true) is not a statement: it does not renew the hold
    p.heardFrom(B, false);
    expect(p.isBusy(B)).toBe(false);
    expect(p.isBusy(C)).toBe(true);
    p.heardFrom(3, false); // a member never marked: nothing to end
    expect(p.busy()).toEqual([C]);
  });

  it('ending the mark keeps the last number: the same statement passed on later is not news', () => {
    // Otherwise a statement still travelling as gossip would be passed on once more after every packet.
    const { peers: p } = peers();
    p.statement(B, 4);
    p.heardFrom(B, false);
    expect(p.statement(B, 4)).toBe(false);
    expect(p.isBusy(B)).toBe(true);
    expect(p.statement(B, 5)).toBe(true);
  });
});

describe('BusyPeers: count, busy() and forget', () => {
  it('count and busy() leave out the members whose statements expired', () => {
    const { clock, peers: p } = peers();
    expect([p.count, p.busy()]).toEqual([0, []]);
    p.statement(B, 1);
    clock.advanceTo(3000);
    p.statement(C, 1);
    expect(p.count).toBe(2);
    expect(p.busy().sort()).toEqual([B, C]);
    clock.advanceTo(1000 + HOLD);
    expect(p.count).toBe(1);
    expect(p.busy()).toEqual([C]);
    clock.advanceTo(3000 + HOLD - 1);
    expect([p.count, p.busy()]).toEqual([1, [C]]);
    clock.advanceTo(3000 + HOLD);
    expect([p.count, p.busy()]).toEqual([0, []]);
  });

  it('forget ends the mark and the numbers: the id may name another member later', () => {
    const { peers: p } = peers();
    p.statement(B, 9);
    p.statement(C, 1);
    p.forget(B);
    expect(p.isBusy(B)).toBe(false);
    expect([p.count, p.busy()]).toEqual([1, [C]]);
    expect(p.statement(B, 1)).toBe(true);
    p.forget(4); // an id never seen
    expect(p.count).toBe(2);
  });
});
