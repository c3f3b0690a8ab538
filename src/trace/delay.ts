/**
 * One-way network delay models for synthetic traces. Each is given by its mean and standard deviation, so
 * that the three can be compared like for like:
 * - normal: symmetric jitter, truncated at 0 (a draw below 0 is drawn again);
 * - log-normal: skewed to the right, as measured network delays usually are (a floor, most delays near
 *   it, a long tail); μ and σ of the underlying normal follow from the moments, σ² = ln(1 + sd²/mean²)
 *   and μ = ln(mean) − σ²/2;
 * - Pareto (type I): a heavy tail over a floor, the shape of delays behind queues and retransmissions;
 *   from the coefficient of variation c = sd/mean the shape is α = 1 + √(1 + 1/c²) (always above 2, so the
 *   variance is finite and equals the one asked for) and the floor is x_m = mean·(α − 1)/α.
 */
import { checkChoice, checkKnownKeys, checkNumber } from '../options.js';
import type { Random } from '../runtime/random.js';

/** A delay distribution by its mean and standard deviation, in ms. */
export interface DelayModel {
  /** The shape: `normal` (symmetric, truncated at 0), `lognormal` (right-skewed) or `pareto` (heavy tail). */
  readonly distribution: 'normal' | 'lognormal' | 'pareto';
  /** Mean delay. >= 0 (> 0 for log-normal and Pareto). */
  readonly meanMs: number;
  /** Standard deviation of the delay. >= 0; 0 makes every delay the mean. */
  readonly stdDeviationMs: number;
}

const OWNER = 'DelayModel';
/** Normal draws below 0 are drawn again up to this many times, then taken as 0. */
const REDRAWS_MAX = 16;

/** Validates a delay model; throws an `InvalidOptionError` naming the field. */
export function checkDelayModel(model: DelayModel): DelayModel {
  checkKnownKeys(OWNER, model, ['distribution', 'meanMs', 'stdDeviationMs']);
  const distribution = checkChoice(OWNER, 'distribution', model.distribution, [
    'normal',
    'lognormal',
    'pareto',
  ]);
  const meanMs = checkNumber(OWNER, 'meanMs', model.meanMs, {
    min: 0,
    minExclusive: distribution !== 'normal',
    max: 3_600_000,
  });
  const stdDeviationMs = checkNumber(OWNER, 'stdDeviationMs', model.stdDeviationMs, {
    min: 0,
    max: 3_600_000,
  });
  return { distribution, meanMs, stdDeviationMs };
}

/** Returns a function drawing one delay in ms from `model` with `random`. */
export function delaySampler(model: DelayModel, random: Random): () => number {
  const { meanMs: mean, stdDeviationMs: sd } = checkDelayModel(model);
  if (sd === 0) return () => mean;
  switch (model.distribution) {
    case 'normal':
      return () => {
        for (let i = 0; i < REDRAWS_MAX; i++) {
          const x = random.normal(mean, sd);
          if (x >= 0) return x;
        }
        return 0;
      };
    case 'lognormal': {
      const sigma = Math.sqrt(Math.log1p((sd * sd) / (mean * mean)));
      const mu = Math.log(mean) - (sigma * sigma) / 2;
      return () => Math.exp(random.normal(mu, sigma));
    }
    case 'pareto': {
      const cv = sd / mean;
      const shape = 1 + Math.sqrt(1 + 1 / (cv * cv));
      const floor = (mean * (shape - 1)) / shape;
      // 1 − U lies in (0, 1], so the power stays finite.
      return () => floor * (1 - random.next()) ** (-1 / shape);
    }
  }
}
