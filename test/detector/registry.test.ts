import { describe, expect, it } from 'vitest';
import { DetectorRegistry, FixedTimeoutDetector, PhiAccrualDetector } from '../../src/index.js';

describe('DetectorRegistry', () => {
  it('creates one detector per peer on its first heartbeat, from the factory', () => {
    const made: string[] = [];
    const registry = new DetectorRegistry<string, PhiAccrualDetector>((peer) => {
      made.push(peer);
      return new PhiAccrualDetector();
    });
    registry.heartbeat('a', 0);
    registry.heartbeat('a', 1000);
    registry.heartbeat('b', 500);
    expect(made).toEqual(['a', 'b']);
    expect(registry.size).toBe(2);
    expect([...registry.peers()]).toEqual(['a', 'b']);
    expect(registry.get('a')?.sampleCount).toBe(3);
  });

  it('treats a peer never heard from as available with phi 0', () => {
    const registry = new DetectorRegistry<string>(() => new PhiAccrualDetector());
    expect(registry.isAvailable('ghost', 1e9)).toBe(true);
    expect(registry.phi('ghost', 1e9)).toBe(0);
    expect(registry.isMonitoring('ghost')).toBe(false);
    expect(registry.size).toBe(0);
  });

  it('answers per peer: a silent peer is suspected while a chatty one is not', () => {
    const registry = new DetectorRegistry<number>(() => new PhiAccrualDetector());
    for (let t = 0; t <= 10_000; t += 1000) {
      registry.heartbeat(1, t);
      if (t <= 2000) registry.heartbeat(2, t);
    }
    expect(registry.isAvailable(1, 10_500)).toBe(true);
    expect(registry.isAvailable(2, 10_500)).toBe(false);
    expect(registry.phi(2, 10_500)).toBeGreaterThan(registry.phi(1, 10_500));
  });

  it('works with any detector: the level of a fixed-timeout detector is the silence', () => {
    const registry = new DetectorRegistry<string, FixedTimeoutDetector>(
      () => new FixedTimeoutDetector({ timeoutMs: 100 }),
    );
    registry.heartbeat('x', 10);
    expect(registry.phi('x', 60)).toBe(50);
    expect(registry.isAvailable('x', 110)).toBe(false);
  });

  it('remove forgets one peer and reset forgets all', () => {
    const registry = new DetectorRegistry<string>(() => new PhiAccrualDetector());
    registry.heartbeat('a', 0);
    registry.heartbeat('b', 0);
    expect(registry.remove('a')).toBe(true);
    expect(registry.remove('a')).toBe(false);
    expect(registry.isMonitoring('a')).toBe(false);
    expect(registry.isAvailable('a', 1e9)).toBe(true);
    expect(registry.isMonitoring('b')).toBe(true);
    registry.reset();
    expect(registry.size).toBe(0);
    expect(registry.isAvailable('b', 1e9)).toBe(true);
  });
});
