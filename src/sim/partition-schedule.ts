/**
 * Puts a run's partitions on the virtual clock: each cuts the network at its start and heals it at its
 * end. Apart from the simulation so that a test can watch the network follow a plan, time by time,
 * without running a cluster.
 */
import type { VirtualClock } from '../runtime/virtual-clock.js';
import type { PartitionFault } from './faults.js';
import type { SimNetwork } from './network.js';

/** Both directions between the side (group 1) and the rest (group 0) dropped. */
const BOTH_WAYS: ReadonlyArray<readonly [number, number]> = [
  [1, 0],
  [0, 1],
];
/** Only the side's packets to the rest dropped. */
const SIDE_TO_REST: ReadonlyArray<readonly [number, number]> = [[1, 0]];

/**
 * Sets a timer on `clock` at each partition's start, which cuts `network`, and one at its end, which
 * heals every cut: partitions of one plan are meant not to overlap (a flapping cut is a sequence of them).
 */
export function schedulePartitions(
  clock: VirtualClock,
  network: SimNetwork,
  partitions: readonly PartitionFault[],
): void {
  for (const part of partitions) {
    const side = new Set(part.side);
    clock.setTimer(part.atMs, () =>
      network.partition((i) => (side.has(i) ? 1 : 0), part.oneWay ? SIDE_TO_REST : BOTH_WAYS),
    );
    clock.setTimer(part.atMs + part.durationMs, () => network.heal());
  }
}
