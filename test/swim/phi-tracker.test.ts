/**
 * The per-member phi that `SwimCore.members()` reports: one phi accrual detector per member, fed by every
 * message from it. Checked against a detector fed the same arrivals by hand.
 */
import { describe, expect, it } from 'vitest';
import { PhiAccrualDetector } from '../../src/detector/phi-accrual.js';
import { PhiTracker } from '../../src/swim/phi-tracker.js';
import { type Harness, harness } from './swim-context.js';

/** A first-gap estimate unlike the detector's default (1000 ms), so that the tracker must pass it on. */
const ESTIMATE_MS = 200;

function tracked(): { h: Harness; tracker: PhiTracker } {
  const h = harness();
  h.know('b');
  h.know('c');
  return { h, tracker: new PhiTracker(h.ctx.view, h.clock, ESTIMATE_MS) };
}

describe('PhiTracker', () => {
  it('gives each member the phi of a detector fed its arrivals, with the first-gap estimate', () => {
    const { h, tracker } = tracked();
    const byHand = new PhiAccrualDetector({ clock: h.clock, firstHeartbeatEstimateMs: ESTIMATE_MS });
    for (const at of [0, 100, 200, 300]) {
      h.clock.advanceTo(at);
      tracker.heardFrom('b');
      byHand.heartbeat(at);
    }
    for (const at of [500, 3500, 3800]) expect(tracker.phiOf(h.id('b'), at)).toBe(byHand.phi(at));
    expect(tracker.phiOf(h.id('b'), 3800)).toBeGreaterThan(1);
  });

  it('is 0 for a member never heard from, for this member and for names it does not know', () => {
    const { h, tracker } = tracked();
    tracker.heardFrom('self');
    tracker.heardFrom('zz');
    h.clock.advanceTo(60_000);
    expect(tracker.phiOf(h.ctx.view.selfId, 60_000)).toBe(0);
    expect(tracker.phiOf(h.id('c'), 60_000)).toBe(0);
  });

  it('forgets a member that left the view', () => {
    const { h, tracker } = tracked();
    tracker.heardFrom('b');
    expect(tracker.phiOf(h.id('b'), 60_000)).toBeGreaterThan(0);
    tracker.forget(h.id('b'));
    expect(tracker.phiOf(h.id('b'), 60_000)).toBe(0);
  });
});
