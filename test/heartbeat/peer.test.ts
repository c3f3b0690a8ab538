/**
 * Which life of a peer a heartbeat belongs to (`classify` in src/heartbeat/peer.ts), through the core:
 * a life is its (incarnation, nonce) pair, and either half differing makes another life. Nonces are any
 * unsigned 32-bit value, small ones included.
 */
import { describe, expect, it } from 'vitest';
import { beat, coreHarness, story } from './heartbeat-harness.js';

describe('lives of a peer', () => {
  it('a restart whose random nonce happens to be 0 or 1 is a new life like any other', () => {
    const h = coreHarness();
    h.core.addPeer({ name: 'b', address: 'b:1' });
    h.core.start();
    h.core.handleHeartbeat('b:1', beat('b', 5, 1, 7));
    h.clock.advance(1000);
    h.core.handleHeartbeat('b:1', beat('b', 0, 2, 1));
    h.clock.advance(1000);
    h.core.handleHeartbeat('b:1', beat('b', 0, 3, 0));
    expect(story(h.events, 'b')).toEqual(['alive:joined', 'alive:rejoined', 'alive:rejoined']);
    expect(h.core.counters).toMatchObject({ restarts: 2, staleHeartbeats: 0 });
    expect(h.core.peers()[0]).toMatchObject({ incarnation: 3, heartbeats: 3 });
  });

  it('a higher incarnation with the same nonce is a new life (a restart that drew the same nonce)', () => {
    // Its sequence restarts at 0, below the last one heard: in the same life that would be stale.
    const h = coreHarness();
    h.core.addPeer({ name: 'b', address: 'b:1' });
    h.core.start();
    h.core.handleHeartbeat('b:1', beat('b', 40, 1, 7));
    h.clock.advance(1000);
    h.core.handleHeartbeat('b:1', beat('b', 0, 2, 7));
    expect(story(h.events, 'b')).toEqual(['alive:joined', 'alive:rejoined']);
    expect(h.core.counters).toMatchObject({ restarts: 1, staleHeartbeats: 0, heartbeatsReceived: 2 });
    expect(h.core.peers()[0]!.incarnation).toBe(2);
    // And a straggler of the first life is now stale.
    h.core.handleHeartbeat('b:1', beat('b', 41, 1, 7));
    expect(h.core.counters.staleHeartbeats).toBe(1);
  });
});
