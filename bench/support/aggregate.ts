/**
 * What the SWIM benches make of seeded simulation runs beyond plain statistics (`stats.ts`): the off/on
 * ratio of false positives with its convention for zero, and the bursty loss rates of the sweeps. Pure
 * functions: data in, data out.
 */

/** How a ratio of false-positive counts is to be read. */
export type RatioBound =
  /** Both counts were positive: the ratio is off / on. */
  | 'exact'
  /** On had none: off / 1 is a lower bound (on is taken as fewer than one event). */
  | 'at-least'
  /** Neither had any: there is nothing to compare. */
  | 'none';

/** The ratio of false positives without a mechanism (`off`) to those with it (`on`). */
export interface FalsePositiveRatio {
  readonly off: number;
  readonly on: number;
  /** off / on; off / 1 when on is 0 (a lower bound); null when both are 0. */
  readonly value: number | null;
  readonly bound: RatioBound;
  /** `12.3×`, `≥ 45×` or `n/a (0 and 0)`. */
  readonly text: string;
}

/**
 * The off/on ratio of two false-positive counts (totals over the same seeds). When `on` is 0 the ratio
 * is reported as at least `off`×, i.e. as if `on` had been 1: with more seeds `on` might reach 1, never
 * less than 0, so that is the most the data show. When both are 0 there is no ratio.
 */
export function falsePositiveRatio(off: number, on: number): FalsePositiveRatio {
  if (!(off >= 0) || !(on >= 0)) throw new RangeError(`counts must be >= 0, got off ${off} and on ${on}`);
  if (on > 0) {
    const value = off / on;
    return { off, on, value, bound: 'exact', text: `${ratioText(value)}×` };
  }
  if (off > 0) return { off, on, value: off, bound: 'at-least', text: `≥ ${ratioText(off)}×` };
  return { off, on, value: null, bound: 'none', text: 'n/a (0 and 0)' };
}

/** A ratio with two significant digits below 10 and none above. */
function ratioText(x: number): string {
  return x < 10 ? x.toFixed(1) : x.toFixed(0);
}

/**
 * The average loss rate of a Gilbert-Elliott channel that enters a burst with probability `enter` per
 * packet, leaves it with `exit` and loses `burstLoss` of the packets inside one.
 */
export function burstyLossRate(enter: number, exit: number, burstLoss: number): number {
  return enter + exit === 0 ? 0 : (enter / (enter + exit)) * burstLoss;
}

/**
 * The chance per packet of entering a burst that gives an average loss rate of `rate`, for bursts that
 * last 1 / `exit` packets on average and lose `burstLoss` of their packets.
 */
export function burstEnterFor(rate: number, exit: number, burstLoss: number): number {
  const share = rate / burstLoss;
  if (!(share >= 0 && share < 1)) throw new RangeError(`rate ${rate} needs burstLoss above it`);
  return (exit * share) / (1 - share);
}
