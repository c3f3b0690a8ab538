/**
 * The QoS metrics of Chen, Toueg and Aguilera on traces built by hand, where every number can be worked
 * out on paper: a fixed timeout suspects exactly `timeout` after each heartbeat, and Chen's detector with
 * a known interval expects the next heartbeat one interval after the mean of its window plus half the
 * window.
 */
import { describe, expect, it } from 'vitest';
import { ChenDetector } from '../../src/detector/chen.js';
import { FixedTimeoutDetector } from '../../src/detector/fixed-timeout.js';
import { PhiAccrualDetector } from '../../src/detector/phi-accrual.js';
import { qosMetrics } from '../../src/qos/metrics.js';
import { replayTrace } from '../../src/trace/replay.js';
import type { Trace, TraceArrival } from '../../src/trace/trace.js';

const HOUR_MS = 3_600_000;

/** Heartbeats sent every second from 0, delivered 100 ms later, except the `lost` ones. */
function periodic(
  beats: number,
  lost: readonly number[],
  durationMs: number,
  crashAtMs?: number,
  delayMs = 100,
): Trace {
  const arrivals: TraceArrival[] = [];
  for (let seq = 0; seq < beats; seq++) {
    if (!lost.includes(seq)) arrivals.push({ t: seq * 1000 + delayMs, seq, sent: seq * 1000 });
  }
  return {
    header: {
      format: 'fdkit-trace',
      version: 1,
      source: 'generated',
      intervalMs: 1000,
      durationMs,
      ...(crashAtMs === undefined ? {} : { crashAtMs }),
    },
    arrivals,
  };
}

describe('QoS metrics of a fixed timeout (1500 ms)', () => {
  // Beats 0..14 arrive at 100, 1100, …, 14,100 ms; beats 3, 7 and 8 are lost; the sender crashes at
  // 15,000 ms and the trace ends at 20,000 ms.
  const trace = periodic(15, [3, 7, 8], 20_000, 15_000);
  const replay = replayTrace(trace, new FixedTimeoutDetector({ timeoutMs: 1500 }));
  const qos = qosMetrics(replay);

  it('suspects 1500 ms after each heartbeat that is not followed within 1500 ms', () => {
    // 2,100 → 4,100 (beat 3 lost), 6,100 → 9,100 (beats 7 and 8 lost), and from 14,100 on (the crash).
    expect(replay.suspicions).toEqual([
      { startMs: 3600, endMs: 4100 },
      { startMs: 7600, endMs: 9100 },
      { startMs: 15_600, endMs: 20_000 },
    ]);
    expect(replay.fromMs).toBe(100);
  });

  it('counts the two suspicions before the crash as mistakes, over the 14.9 s of up-time', () => {
    expect(qos.upMs).toBe(14_900);
    expect(qos.mistakes).toBe(2);
    expect(qos.mistakesPerHour).toBeCloseTo((2 * HOUR_MS) / 14_900, 9);
    // T_MR: from the start of the first mistake to the start of the second.
    expect(qos.mistakeRecurrenceMs).toBe(4000);
    // T_M: 500 and 1500 ms.
    expect(qos.mistakeDurationMs).toEqual({ mean: 1000, p50: 500, p99: 1500, max: 1500 });
    // P_A: trusted for all of the up-time but those 2000 ms.
    expect(qos.queryAccuracy).toBeCloseTo(1 - 2000 / 14_900, 12);
  });

  it('detects a crash after any heartbeat 1600 ms after its sending: 100 ms of delay and the timeout', () => {
    expect(qos.detectionMs).toEqual({ mean: 1600, p50: 1600, p99: 1600, max: 1600 });
    // The real crash, at 15,000: the last heartbeat arrived at 14,100, suspicion at 15,600.
    expect(qos.crashDetectionMs).toBe(600);
  });

  it('counts detection from the arrival when the trace has no send times', () => {
    const unsent: Trace = { ...trace, arrivals: trace.arrivals.map(({ t, seq }) => ({ t, seq })) };
    const q = qosMetrics(replayTrace(unsent, new FixedTimeoutDetector({ timeoutMs: 1500 })));
    expect(q.detectionMs?.max).toBe(1500);
    expect(q.mistakes).toBe(2);
  });
});

describe('QoS metrics around a crash during a suspicion', () => {
  // Beats 0..6 (3 lost); the last arrives at 6,100, suspicion from 7,600; the sender crashes at 7,700.
  const trace = periodic(7, [3], 10_000, 7700);
  const qos = qosMetrics(replayTrace(trace, new FixedTimeoutDetector({ timeoutMs: 1500 })));

  it('counts the suspicion that began while the sender was up as a mistake, cut at the crash', () => {
    expect(qos.upMs).toBe(7600);
    expect(qos.mistakes).toBe(2);
    expect(qos.mistakeDurationMs?.max).toBe(500);
    expect(qos.mistakeDurationMs?.mean).toBe(300); // 500 and 100
    expect(qos.queryAccuracy).toBeCloseTo(1 - 600 / 7600, 12);
  });

  it('has detected the crash at once: the detector already suspected', () => {
    expect(qos.crashDetectionMs).toBe(0);
  });
});

describe("QoS metrics of Chen's detector (known interval, window 2, α 200 ms)", () => {
  // Arrivals exactly at 0, 1000, 2000, 4000, 5000 (beat 3 lost); the trace ends at 7000, no crash.
  const trace = periodic(6, [3], 7000, undefined, 0);
  const replay = replayTrace(trace, new ChenDetector({ intervalMs: 1000, windowSize: 2, alphaMs: 200 }));
  const qos = qosMetrics(replay);

  it('suspects α after each expected arrival', () => {
    // After 2000: window {1000, 2000}, EA = 1500 + 1000·3/2 = 3000, suspicion at 3200 until 4000.
    // 4000 is late by α or more, so the window restarts there: EA 5000, then {4000, 5000}: EA 6000.
    expect(replay.suspicions).toEqual([
      { startMs: 3200, endMs: 4000 },
      { startMs: 6200, endMs: 7000 },
    ]);
    expect([...replay.unavailableAtMs]).toEqual([1200, 2200, 3200, 5200, 6200]);
  });

  it('counts both suspicions as mistakes when the trace has no crash', () => {
    expect(qos.upMs).toBe(7000);
    expect(qos.mistakes).toBe(2);
    expect(qos.mistakesPerHour).toBeCloseTo((2 * HOUR_MS) / 7000, 9);
    expect(qos.mistakeRecurrenceMs).toBe(3000);
    expect(qos.mistakeDurationMs?.mean).toBe(800);
    expect(qos.queryAccuracy).toBeCloseTo(1 - 1600 / 7000, 12);
    expect(qos.detectionMs?.max).toBe(1200);
    expect(qos.crashDetectionMs).toBeNull();
  });
});

describe('QoS metrics at the edges', () => {
  it('has no mistakes, P_A 1 and no T_MR or T_M for a detector that never suspects within the trace', () => {
    const qos = qosMetrics(
      replayTrace(periodic(10, [], 10_000), new FixedTimeoutDetector({ timeoutMs: 5000 })),
    );
    expect(qos.mistakes).toBe(0);
    expect(qos.mistakesPerHour).toBe(0);
    expect(qos.mistakeRecurrenceMs).toBeNull();
    expect(qos.mistakeDurationMs).toBeNull();
    expect(qos.queryAccuracy).toBe(1);
  });

  it('has one mistake and no recurrence time for a single suspicion', () => {
    const qos = qosMetrics(
      replayTrace(periodic(10, [4], 10_000), new FixedTimeoutDetector({ timeoutMs: 1500 })),
    );
    expect(qos.mistakes).toBe(1);
    expect(qos.mistakeRecurrenceMs).toBeNull();
  });

  it('merges a suspicion that a heartbeat does not end into one mistake', () => {
    // Phi of no silence at all is 0.075 with these settings: above the threshold, so the detector
    // suspects at once after every heartbeat, from the first arrival to the end.
    const detector = new PhiAccrualDetector({
      threshold: 0.01,
      acceptableHeartbeatPauseMs: 0,
      minStdDeviationMs: 1000,
    });
    const replay = replayTrace(periodic(5, [], 6000), detector);
    expect(replay.suspicions).toEqual([{ startMs: 100, endMs: 6000 }]);
    const qos = qosMetrics(replay);
    expect(qos.mistakes).toBe(1);
    expect(qos.queryAccuracy).toBe(0);
  });

  it('reports nothing to detect on a trace without heartbeats', () => {
    const qos = qosMetrics(replayTrace(periodic(0, [], 5000, 1000), new FixedTimeoutDetector()));
    expect(qos.detectionMs).toBeNull();
    expect(qos.crashDetectionMs).toBeNull();
    expect(qos.upMs).toBe(0);
    expect(qos.mistakesPerHour).toBe(0);
  });
});
