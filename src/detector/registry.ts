/**
 * One failure detector per monitored peer, created on the first heartbeat by a factory, as Akka's
 * `DefaultFailureDetectorRegistry` does. A peer never heard from is treated as available, so adding a
 * peer to a cluster does not make it suspected before it has had a chance to speak.
 */
import type { FailureDetector } from './failure-detector.js';

/**
 * Detectors keyed by peer.
 *
 * @example
 * ```ts
 * const registry = new DetectorRegistry<string>(() => new PhiAccrualDetector());
 * registry.heartbeat('n1', 0);
 * registry.phi('n1', 5000);       // > 8
 * registry.isAvailable('n2', 0);  // true: never heard from
 * ```
 */
export class DetectorRegistry<K, D extends FailureDetector = FailureDetector> {
  private readonly detectors = new Map<K, D>();

  /** @param factory - makes the detector of a peer on its first heartbeat */
  constructor(private readonly factory: (peer: K) => D) {}

  /** Number of peers with a detector. */
  get size(): number {
    return this.detectors.size;
  }

  /** Records a heartbeat from `peer`, creating its detector if needed. */
  heartbeat(peer: K, atMs?: number): void {
    let detector = this.detectors.get(peer);
    if (detector === undefined) {
      detector = this.factory(peer);
      this.detectors.set(peer, detector);
    }
    detector.heartbeat(atMs);
  }

  /** Whether `peer` is available; true for a peer never heard from. */
  isAvailable(peer: K, atMs?: number): boolean {
    return this.detectors.get(peer)?.isAvailable(atMs) ?? true;
  }

  /** The suspicion level of `peer` (phi for phi detectors); 0 for a peer never heard from. */
  phi(peer: K, atMs?: number): number {
    return this.detectors.get(peer)?.suspicion(atMs) ?? 0;
  }

  /** Whether a heartbeat from `peer` has been recorded. */
  isMonitoring(peer: K): boolean {
    return this.detectors.get(peer)?.isMonitoring ?? false;
  }

  /** The detector of `peer`, if it has one. */
  get(peer: K): D | undefined {
    return this.detectors.get(peer);
  }

  /** The peers that have a detector, in the order they were first heard from. */
  peers(): IterableIterator<K> {
    return this.detectors.keys();
  }

  /** Forgets `peer`; returns whether it had a detector. */
  remove(peer: K): boolean {
    return this.detectors.delete(peer);
  }

  /** Forgets every peer. */
  reset(): void {
    this.detectors.clear();
  }
}
