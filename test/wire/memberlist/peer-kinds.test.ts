/** Which addresses of a mixed cluster hold fdkit members, and what waits for one. */
import { describe, expect, it } from 'vitest';
import { PEER_KINDS_MAX, PeerKinds } from '../../../src/wire/memberlist/peer-kinds.js';

const A = '10.0.0.1:7946';
const B = '10.0.0.2:7946';

describe('PeerKinds', () => {
  it('knows nothing of an address until it is marked, and takes the latest mark', () => {
    const kinds = new PeerKinds();
    expect(kinds.isFdkit(A)).toBe(false);
    kinds.markFdkit(A);
    expect(kinds.isFdkit(A)).toBe(true);
    expect(kinds.isFdkit(B)).toBe(false);
    // A restart under memberlist at the same address.
    kinds.markMemberlist(A);
    expect(kinds.isFdkit(A)).toBe(false);
    kinds.markFdkit(A);
    expect(kinds.isFdkit(A)).toBe(true);
  });

  it('runs a wait at once for a known fdkit address', () => {
    const kinds = new PeerKinds();
    kinds.markFdkit(A);
    const ran: string[] = [];
    kinds.whenFdkit(A, () => ran.push('a'));
    expect(ran).toEqual(['a']);
  });

  it('runs the waits of an unknown address once, in order, when it is marked fdkit', () => {
    const kinds = new PeerKinds();
    const ran: string[] = [];
    kinds.whenFdkit(A, () => ran.push('first'));
    kinds.whenFdkit(A, () => ran.push('second'));
    kinds.whenFdkit(B, () => ran.push('b'));
    expect(ran).toEqual([]);
    kinds.markFdkit(A);
    expect(ran).toEqual(['first', 'second']);
    kinds.markFdkit(A);
    expect(ran).toEqual(['first', 'second']);
  });

  it('does not run a cancelled wait; the others still run', () => {
    const kinds = new PeerKinds();
    const ran: string[] = [];
    const cancel = kinds.whenFdkit(A, () => ran.push('cancelled'));
    kinds.whenFdkit(A, () => ran.push('kept'));
    cancel();
    cancel();
    kinds.markFdkit(A);
    expect(ran).toEqual(['kept']);
  });

  it('drops the waits of an address marked memberlist, and waits for none there', () => {
    const kinds = new PeerKinds();
    const ran: string[] = [];
    kinds.whenFdkit(A, () => ran.push('before'));
    kinds.markMemberlist(A);
    kinds.whenFdkit(A, () => ran.push('after'));
    kinds.markFdkit(A);
    expect(ran).toEqual([]);
    expect(kinds.isFdkit(A)).toBe(true);
  });

  it(`remembers at most ${PEER_KINDS_MAX} addresses, forgetting the oldest first`, () => {
    const kinds = new PeerKinds();
    const address = (i: number): string => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}:1`;
    for (let i = 0; i < PEER_KINDS_MAX; i++) kinds.markFdkit(address(i));
    // Marking a remembered address again takes no room.
    kinds.markFdkit(address(0));
    expect(kinds.isFdkit(address(0))).toBe(true);
    kinds.markFdkit(address(PEER_KINDS_MAX));
    expect(kinds.isFdkit(address(0))).toBe(false);
    expect(kinds.isFdkit(address(1))).toBe(true);
    expect(kinds.isFdkit(address(PEER_KINDS_MAX))).toBe(true);
  });
});
