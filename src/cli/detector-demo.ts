/**
 * `fdkit demo detector`: a phi-accrual detector with Akka's defaults watches a
 * simulated heartbeat stream (jitter, a long pause, then a crash) in virtual time, and the verdicts
 * Alive → Suspected → Dead are printed as they happen, with a bar chart of phi.
 */
import { PhiAccrualDetector } from '../detector/phi-accrual.js';
import { Random } from '../runtime/random.js';
import { VirtualClock } from '../runtime/virtual-clock.js';

/** A verdict about the watched peer. */
export type Verdict = 'Alive' | 'Suspected' | 'Dead';

/** One change of verdict. */
export interface VerdictChange {
  readonly atMs: number;
  readonly from: Verdict;
  readonly to: Verdict;
  readonly phi: number;
  /** Silence since the last heartbeat when the change happened. */
  readonly silenceMs: number;
}

/** The scenario of the demo; every time is virtual milliseconds. */
export interface DetectorDemoOptions {
  /** Seed of the heartbeat jitter. */
  readonly seed: number;
  /** Heartbeat interval of the sender. */
  readonly intervalMs: number;
  /** Standard deviation of the jitter added to each interval. */
  readonly jitterMs: number;
  /** When the sender freezes (a GC pause, SIGSTOP), and for how long. */
  readonly pauseAtMs: number;
  readonly pauseMs: number;
  /** When the sender crashes for good. */
  readonly crashAtMs: number;
  /** Length of the run. */
  readonly durationMs: number;
  /** How long a peer stays Suspected before it is declared Dead. */
  readonly suspicionTimeoutMs: number;
  /** Receives each line of output. */
  readonly write: (line: string) => void;
}

/** The scenario that `fdkit demo detector` runs. */
export const defaultDemoScenario: Omit<DetectorDemoOptions, 'write'> = {
  seed: 1,
  intervalMs: 1000,
  jitterMs: 40,
  pauseAtMs: 20_000,
  pauseMs: 6000,
  crashAtMs: 45_000,
  durationMs: 60_000,
  suspicionTimeoutMs: 5000,
};

const SAMPLE_MS = 100;
// Calm stretches get a row every 5 s; while phi rises or the verdict is not Alive, one every 0.5 s.
const CALM_ROW_MS = 5000;
const BUSY_ROW_MS = 500;
const BUSY_PHI = 0.5;
const BAR_WIDTH = 32;
const BAR_MAX_PHI = 16;

function formatPhi(value: number): string {
  return value === Number.POSITIVE_INFINITY ? '∞' : value.toFixed(2);
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

function bar(phiValue: number, threshold: number): string {
  const filled = Math.min(BAR_WIDTH, Math.round((Math.min(phiValue, BAR_MAX_PHI) / BAR_MAX_PHI) * BAR_WIDTH));
  const mark = Math.round((threshold / BAR_MAX_PHI) * BAR_WIDTH);
  let out = '';
  for (let i = 0; i < BAR_WIDTH; i++) out += i < filled ? '█' : i === mark ? '┊' : ' ';
  return `${out}${phiValue > BAR_MAX_PHI ? '▶' : ''}`;
}

/**
 * Runs the scenario in virtual time, writing the timeline through `options.write`, and returns every
 * change of verdict.
 */
export function runDetectorDemo(options: DetectorDemoOptions): VerdictChange[] {
  const { write } = options;
  const clock = new VirtualClock();
  const rng = new Random(options.seed);
  const akka = new PhiAccrualDetector({ clock });
  const cassandra = new PhiAccrualDetector({
    clock,
    distribution: 'exponential',
    acceptableHeartbeatPauseMs: 0,
  });
  const changes: VerdictChange[] = [];
  let verdict: Verdict = 'Alive';
  let suspectedSinceMs = 0;
  let lastHeartbeatMs = 0;

  const change = (to: Verdict, phiValue: number): void => {
    const now = clock.now();
    const entry = { atMs: now, from: verdict, to, phi: phiValue, silenceMs: now - lastHeartbeatMs };
    changes.push(entry);
    verdict = to;
    write(
      `  » ${seconds(now).padStart(6)}  ${entry.from} → ${to}  (phi ${formatPhi(entry.phi)}, ` +
        `${to === 'Alive' ? 'a heartbeat ended' : 'after'} ${seconds(entry.silenceMs)} of silence)`,
    );
  };

  const sendHeartbeat = (): void => {
    const now = clock.now();
    if (now >= options.crashAtMs) return;
    if (now >= options.pauseAtMs && now < options.pauseAtMs + options.pauseMs) {
      // Frozen: the next heartbeat leaves the moment the pause ends.
      clock.setTimer(options.pauseAtMs + options.pauseMs - now, sendHeartbeat);
      return;
    }
    // Report the recovery before recording the heartbeat, so the event carries the silence it ended.
    if (verdict === 'Suspected') change('Alive', akka.phi());
    akka.heartbeat();
    cassandra.heartbeat();
    lastHeartbeatMs = now;
    clock.setTimer(Math.max(50, rng.normal(options.intervalMs, options.jitterMs)), sendHeartbeat);
  };

  const sample = (): void => {
    const now = clock.now();
    if (verdict === 'Alive' && !akka.isAvailable()) {
      change('Suspected', akka.phi());
      suspectedSinceMs = now;
    } else if (verdict === 'Suspected' && now - suspectedSinceMs >= options.suspicionTimeoutMs) {
      change('Dead', akka.phi());
    }
    const busy = verdict !== 'Alive' || akka.phi() >= BUSY_PHI;
    if (now % (busy ? BUSY_ROW_MS : CALM_ROW_MS) === 0) {
      write(
        `  ${seconds(now).padStart(6)}  ${formatPhi(akka.phi()).padStart(8)}  ` +
          `${formatPhi(cassandra.phi()).padStart(8)}  ${verdict.padEnd(9)}  ${bar(akka.phi(), akka.threshold)}`,
      );
    }
    if (now + SAMPLE_MS <= options.durationMs) clock.setTimer(SAMPLE_MS, sample);
  };

  write(
    `fdkit demo detector: a phi-accrual detector (Akka's defaults: threshold ${akka.threshold}, acceptable pause ` +
      `${akka.acceptableHeartbeatPauseMs} ms) watches heartbeats sent every ${options.intervalMs} ms ± ` +
      `${options.jitterMs} ms.`,
  );
  write(
    `The sender freezes for ${seconds(options.pauseMs)} at ${seconds(options.pauseAtMs)} and crashes at ` +
      `${seconds(options.crashAtMs)}. Suspected when phi >= ${akka.threshold}; Dead after ` +
      `${seconds(options.suspicionTimeoutMs)} suspected. Virtual time, seed ${options.seed}.`,
  );
  write('');
  write(
    `    time  phi Akka  phi Cas.  verdict    0${' '.repeat(BAR_WIDTH / 2 - 1)}${akka.threshold}${' '.repeat(BAR_WIDTH / 2 - 2)}16`,
  );
  clock.setTimer(0, sendHeartbeat);
  clock.setTimer(SAMPLE_MS, sample);
  clock.advanceTo(options.durationMs);

  write('');
  write('Timeline:');
  for (const c of changes) {
    write(
      `  ${seconds(c.atMs).padStart(6)}  ${c.from.padEnd(9)} → ${c.to.padEnd(9)}  ${seconds(c.silenceMs)} of silence`,
    );
  }
  return changes;
}
