/**
 * An adaptive probe timeout, an option that is off by default. Instead of a fixed wait for the direct
 * ack, a member waits until the wait itself becomes improbable: it keeps the round-trip times of recent
 * direct acks and applies the phi accrual detector's normal model to them (Hayashibara et al., 2004),
 * ending the wait where phi reaches `phi`, within [minMs, probeTimeoutMs]. On a LAN this moves the
 * indirect probes from half the period to a few milliseconds into it, leaving them most of the period.
 *
 * Late direct acks are recorded too (the indirect probes carry sequence numbers of their own), so the
 * estimate is not censored at its own timeout and cannot spiral down.
 */
import { IntervalWindow } from '../detector/interval-window.js';
import { normalPhiUnchecked } from '../detector/phi.js';
import { checkKnownKeys, checkNumber } from '../options.js';

/** Options of the adaptive probe timeout. */
export interface AdaptiveTimeoutOptions {
  /** Phi of the wait at which the direct ping is given up. Default 3 (one healthy ack in 1,000 is later). */
  readonly phi?: number;
  /** Shortest timeout, whatever the round trips. Default 10 ms. */
  readonly minMs?: number;
}

const OWNER = 'adaptiveProbeTimeout';
/** Round trips kept. */
const WINDOW = 256;
/** Round trips needed before the estimate replaces the fixed timeout. */
const MIN_SAMPLES = 8;
/** Floor of the deviation, so that perfectly regular round trips do not make the timeout razor-thin. */
const MIN_DEVIATION_MS = 1;

/**
 * Checks adaptive-timeout options given to `owner`, each named after `path` (`adaptiveProbeTimeout.` for
 * a factory's option); returns phi and the shortest timeout, defaults filled in.
 */
export function checkAdaptiveTimeoutOptions(
  options: AdaptiveTimeoutOptions,
  maxMs: number,
  owner = OWNER,
  path = '',
): { readonly phi: number; readonly minMs: number } {
  checkKnownKeys(owner, options, ['phi', 'minMs'], path);
  return {
    phi: checkNumber(owner, `${path}phi`, options.phi ?? 3, { min: 0.5, max: 30 }),
    minMs: checkNumber(owner, `${path}minMs`, options.minMs ?? 10, { min: 0, max: maxMs }),
  };
}

/** Round-trip statistics and the timeout they imply. */
export class AdaptiveTimeout {
  private readonly rtts = new IntervalWindow(WINDOW);
  private readonly deviations: number;
  readonly minMs: number;

  constructor(
    options: AdaptiveTimeoutOptions,
    private readonly maxMs: number,
  ) {
    const { phi, minMs } = checkAdaptiveTimeoutOptions(options, maxMs);
    this.minMs = minMs;
    this.deviations = deviationsForPhi(phi);
  }

  /** Records the round trip of a direct ack. */
  record(rttMs: number): void {
    if (rttMs >= 0) this.rtts.push(rttMs);
  }

  /** The wait for a direct ack before indirect probes, before local-health scaling. */
  timeoutMs(): number {
    if (this.rtts.size < MIN_SAMPLES) return this.maxMs;
    const mean = this.rtts.mean;
    const deviation = Math.max(Math.sqrt(this.rtts.varianceAround(mean)), MIN_DEVIATION_MS);
    return Math.min(this.maxMs, Math.max(this.minMs, mean + this.deviations * deviation));
  }
}

/** The y > 0 at which the normal phi reaches `phi`, by bisection (phi is increasing in y). */
function deviationsForPhi(phi: number): number {
  let lo = 0;
  let hi = 64;
  for (let i = 0; i < 100; i++) {
    const mid = (lo + hi) / 2;
    if (normalPhiUnchecked(mid, 0, 1) < phi) lo = mid;
    else hi = mid;
  }
  return hi;
}
