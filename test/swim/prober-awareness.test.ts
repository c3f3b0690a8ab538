/**
 * Lifeguard's local health awareness in the prober (Dadgar, Phillips and Currey, 2018, IV-A): a member
 * whose health score is s probes every (s + 1) probe intervals and waits (s + 1) probe timeouts for an
 * ack before it asks others to probe indirectly; each answered probe lowers the score by one. Observed on
 * what one core sends its scripted peers (`swim/swim-scripted.ts`), with the score it reports at the
 * moment it sends each probe.
 */
import { describe, expect, it } from 'vitest';
import { memberlistLan } from '../../src/swim/profiles.js';
import { Scripted } from './swim-scripted.js';

const I = memberlistLan.probeIntervalMs;
const T = memberlistLan.probeTimeoutMs;

describe('the prober stretches its period and its probe timeout by the health score + 1', () => {
  it.each([1, 2, 3])('probe periods after a stress report of 7: 8, 7, 6, ... intervals (seed %i)', (seed) => {
    const s = new Scripted({ peers: ['b', 'c', 'd'], seed });
    s.start();
    s.core.reportLocalStress(memberlistLan.awarenessMaxMultiplier - 1);
    s.run(60_000);
    const pings = s.pings();
    expect(pings.length).toBeGreaterThan(10);
    // The score at each probe: the first one at 7, then one less per answered probe, down to 0.
    expect(pings.slice(0, 9).map((p) => p.localHealth)).toEqual([7, 6, 5, 4, 3, 2, 1, 0, 0]);
    for (let i = 1; i < pings.length; i++) {
      const previous = pings[i - 1]!;
      expect(pings[i]!.atMs - previous.atMs, `probe ${i}`).toBeCloseTo(I * (previous.localHealth + 1), 6);
    }
    expect(s.core.localHealth).toBe(0);
  });

  it.each([1, 2, 3])(
    'a silent target: the ping-req round starts (s + 1) probe timeouts after the ping (seed %i)',
    (seed) => {
      const s = new Scripted({ peers: ['b', 'c', 'x'], seed });
      s.start();
      s.peer('x').silent = true;
      // The helpers nack, so failed probes of x neither raise nor lower the score.
      s.core.reportLocalStress(5);
      // Within the first 24 s every ping to x is a probe: its suspicion, raised after the first failed probe
      // and confirmed by no one, runs for 24 s before the core's last-word ping or its death.
      s.run(24_000);
      const all = s.pings();
      const pingsOfX = all.filter((p) => p.to === s.peer('x').address);
      expect(pingsOfX.filter((p) => p.localHealth > 0).length).toBeGreaterThan(1);
      let rounds = 0;
      for (const ping of pingsOfX) {
        const next = all.find((p) => p.atMs > ping.atMs);
        if (next === undefined) continue; // its period has not ended yet
        // Its period is stretched: the next probe comes (s + 1) intervals later ...
        expect(next.atMs - ping.atMs, `ping at ${ping.atMs}`).toBeCloseTo(I * (ping.localHealth + 1), 6);
        // ... and within it, the ping-req round (s + 1) probe timeouts after the ping.
        const reqs = s.sent.filter(
          (r) => r.packet.type === 'ping-req' && r.atMs > ping.atMs && r.atMs < next.atMs,
        );
        expect(reqs.length, `ping at ${ping.atMs}`).toBeGreaterThan(0);
        for (const r of reqs) {
          expect(r.packet.type === 'ping-req' && r.packet.target).toBe('x');
          expect(r.atMs - ping.atMs, `ping at ${ping.atMs}`).toBeCloseTo(T * (ping.localHealth + 1), 6);
        }
        rounds++;
      }
      expect(rounds).toBeGreaterThan(1);
    },
  );
});
