/**
 * What the tests of the simulator's metrics collector (src/sim/metrics.ts) feed it by hand: member
 * events, and a collector over four members n0..n3.
 */

import { MetricsCollector } from '../../src/sim/metrics.js';
import type { MemberEvent } from '../../src/swim/events.js';

export function event(
  type: MemberEvent['type'],
  member: number,
  incarnation: number,
  atMs: number,
): MemberEvent {
  return {
    type,
    member: `n${member}`,
    address: `sim-${member}:7946`,
    incarnation,
    previous: 'alive',
    atMs,
    wallMs: atMs,
    cause: type === 'dead' ? 'suspicion-timeout' : type === 'suspect' ? 'probe-failed' : 'joined',
    confirmations: 0,
    localHealth: 0,
  };
}

/**
 * Four members n0..n3, each in the life that started at incarnation 5, up while `up[m]`. Like the
 * simulator's, it answers −1 for a name it does not know.
 */
export function collector(up: boolean[]): MetricsCollector {
  return new MetricsCollector(4, {
    isUp: (m) => up[m] === true,
    lifeIncarnation: () => 5,
    indexOf: (name) => (/^n[0-3]$/.test(name) ? Number(name.slice(1)) : -1),
  });
}
