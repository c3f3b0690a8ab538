/**
 * The prober's port as the façade wires it: the suspicions answer for suspects and failed probes, the
 * death watch reopens its watches each period, and busy members (`backpressure.ts`) are excused.
 */
import type { ProberPort } from './prober.js';
import type { Suspicions } from './suspicions.js';

export function proberPort(
  suspicions: Suspicions,
  deathWatch: { tick(): void } | undefined,
  backpressure:
    | { periodStarted(): void; excuses(id: number): boolean; spares(id: number): boolean }
    | undefined,
): ProberPort {
  return {
    accusationOf: (id) => suspicions.accusationOf(id),
    ownSuspectToProbe: () => suspicions.ownSuspectToProbe(),
    probing: (id) => suspicions.probing(id),
    probeFailed: (id, counted, silent) => suspicions.probeFailed(id, counted, silent),
    probeRefused: (id) => suspicions.probeRefused(id),
    hostAnswered: (id) => suspicions.hostAnswered(id),
    heard: (name) => suspicions.heardFrom(name),
    periodStarted: () => {
      deathWatch?.tick();
      backpressure?.periodStarted();
    },
    excuses: (id) => backpressure?.excuses(id) === true,
    spares: (id) => backpressure?.spares(id) === true,
  };
}
