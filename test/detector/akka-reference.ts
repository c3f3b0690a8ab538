/**
 * An independent transliteration of Akka's `PhiAccrualFailureDetector` and `HeartbeatHistory` (immutable
 * history, sums recomputed from the list, whole-millisecond timestamps) and of Cassandra's
 * `ArrivalWindow`, used as the oracle the optimized detectors are compared with.
 */
export interface AkkaParams {
  threshold: number;
  maxSampleSize: number;
  minStdDeviationMs: number;
  acceptableHeartbeatPauseMs: number;
  firstHeartbeatEstimateMs: number;
}

export class AkkaReference {
  private intervals: number[] = [];
  private timestamp: number | undefined;

  constructor(private readonly p: AkkaParams) {}

  private append(history: number[], interval: number): number[] {
    const next = history.length < this.p.maxSampleSize ? [...history] : history.slice(1);
    next.push(interval);
    return next;
  }

  private firstHeartbeat(): number[] {
    const mean = this.p.firstHeartbeatEstimateMs;
    const std = Math.trunc(mean / 4); // Long division in Scala
    return this.append(this.append([], mean - std), mean + std);
  }

  heartbeat(t: number): void {
    if (this.timestamp === undefined) this.intervals = this.firstHeartbeat();
    else if (this.isAvailable(t)) this.intervals = this.append(this.intervals, t - this.timestamp);
    this.timestamp = t;
  }

  isAvailable(t: number): boolean {
    return this.phi(t) < this.p.threshold;
  }

  phi(t: number): number {
    if (this.timestamp === undefined) return 0;
    const timeDiff = t - this.timestamp;
    const n = this.intervals.length;
    const intervalSum = this.intervals.reduce((a, b) => a + b, 0);
    const squaredIntervalSum = this.intervals.reduce((a, b) => a + b * b, 0);
    const mean = intervalSum / n;
    const variance = squaredIntervalSum / n - mean * mean;
    const std = Math.max(Math.sqrt(variance), this.p.minStdDeviationMs);
    const m = mean + this.p.acceptableHeartbeatPauseMs;
    const y = (timeDiff - m) / std;
    const e = Math.exp(-y * (1.5976 + 0.070566 * y * y));
    return timeDiff > m ? -Math.log10(e / (1.0 + e)) : -Math.log10(1.0 - 1.0 / (1.0 + e));
  }
}

/** Cassandra's ArrivalWindow: a bounded window seeded with one initial interval, phi = t / mean. */
export class CassandraReference {
  private readonly window: number[] = [];
  private tLast = 0;

  constructor(
    private readonly size: number,
    private readonly initialValueMs: number,
  ) {}

  add(t: number): void {
    this.push(this.tLast > 0 ? t - this.tLast : this.initialValueMs);
    this.tLast = t;
  }

  private push(x: number): void {
    if (this.window.length === this.size) this.window.shift();
    this.window.push(x);
  }

  /** What Cassandra compares with phi_convict_threshold: PHI_FACTOR × (t − tLast) / mean. */
  reportedPhi(now: number): number {
    const mean = this.window.reduce((a, b) => a + b, 0) / this.window.length;
    return (1 / Math.log(10)) * ((now - this.tLast) / mean);
  }
}
