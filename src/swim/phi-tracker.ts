/**
 * A phi-accrual detector per member, fed by every message from it: the suspicion level of each member's
 * silence that `SwimCore.members()` reports. The protocol itself decides on probes, not on phi.
 */
import { PhiAccrualDetector } from '../detector/phi-accrual.js';
import type { Clock } from '../runtime/clock.js';
import type { MemberView } from './member-view.js';

export class PhiTracker {
  private readonly detectors = new Map<number, PhiAccrualDetector>();

  /** @param firstHeartbeatEstimateMs - the gap a new detector expects before it has measured one */
  constructor(
    private readonly view: MemberView,
    private readonly clock: Clock,
    private readonly firstHeartbeatEstimateMs: number,
  ) {}

  /** A message came from the member called `name`. */
  heardFrom(name: string): void {
    const id = this.view.directory.find(name);
    if (id === undefined || id === this.view.selfId) return;
    let detector = this.detectors.get(id);
    if (detector === undefined) {
      detector = new PhiAccrualDetector({
        clock: this.clock,
        firstHeartbeatEstimateMs: this.firstHeartbeatEstimateMs,
      });
      this.detectors.set(id, detector);
    }
    detector.heartbeat(this.clock.now());
  }

  /** Phi of the silence of member `id` at `nowMs`, 0 when never heard from. */
  phiOf(id: number, nowMs: number): number {
    return this.detectors.get(id)?.phi(nowMs) ?? 0;
  }

  /** Member `id` left the view. */
  forget(id: number): void {
    this.detectors.delete(id);
  }
}
