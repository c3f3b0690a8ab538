/**
 * Heartbeat loss models for synthetic traces: independent loss, and the bursty loss of the
 * Gilbert-Elliott channel (Gilbert, "Capacity of a burst-noise channel", 1960; Elliott, 1963): a two-state
 * Markov chain, good and bad, with its own loss probability in each state, advanced once per heartbeat.
 * With no loss in the good state and certain loss in the bad one, losses come in bursts of mean length
 * 1 / badToGood, and the long-run loss rate is goodToBad / (goodToBad + badToGood).
 */
import { checkChoice, checkKnownKeys, checkNumber } from '../options.js';
import type { Random } from '../runtime/random.js';

/** How heartbeats are lost. */
export type LossModel =
  | {
      /** No heartbeat is lost. */
      readonly model: 'none';
    }
  | {
      /** Each heartbeat is lost with `probability`, independently. */
      readonly model: 'independent';
      /** The loss probability of each heartbeat, in [0, 1]. */
      readonly probability: number;
    }
  | {
      /** A two-state Markov chain (good, bad) per heartbeat: losses come in bursts. */
      readonly model: 'gilbert-elliott';
      /** Probability of moving from the good state to the bad one, per heartbeat. */
      readonly goodToBad: number;
      /** Probability of moving back, per heartbeat: bursts last 1 / badToGood heartbeats on average. */
      readonly badToGood: number;
      /** Loss probability in the good state. Default 0. */
      readonly lossInGood?: number;
      /** Loss probability in the bad state. Default 1. */
      readonly lossInBad?: number;
    };

const OWNER = 'LossModel';
const PROBABILITY = { min: 0, max: 1 } as const;

/** Validates a loss model; throws an `InvalidOptionError` naming the field. */
export function checkLossModel(loss: LossModel): LossModel {
  checkKnownKeys(OWNER, loss, ['model', 'probability', 'goodToBad', 'badToGood', 'lossInGood', 'lossInBad']);
  checkChoice(OWNER, 'model', loss.model, ['none', 'independent', 'gilbert-elliott']);
  if (loss.model === 'independent') {
    return {
      model: 'independent',
      probability: checkNumber(OWNER, 'probability', loss.probability, PROBABILITY),
    };
  }
  if (loss.model === 'gilbert-elliott') {
    return {
      model: 'gilbert-elliott',
      goodToBad: checkNumber(OWNER, 'goodToBad', loss.goodToBad, PROBABILITY),
      // 0 would keep a channel that turned bad lossy for ever.
      badToGood: checkNumber(OWNER, 'badToGood', loss.badToGood, { min: 0, minExclusive: true, max: 1 }),
      lossInGood: checkNumber(OWNER, 'lossInGood', loss.lossInGood ?? 0, PROBABILITY),
      lossInBad: checkNumber(OWNER, 'lossInBad', loss.lossInBad ?? 1, PROBABILITY),
    };
  }
  return { model: 'none' };
}

/**
 * The Gilbert-Elliott parameters for a long-run loss `rate` (in [0, 1)) in bursts of `meanBurst`
 * heartbeats on average (>= 1), with no loss between bursts and every heartbeat of a burst lost.
 */
export function burstyLoss(rate: number, meanBurst: number): LossModel {
  checkNumber('burstyLoss', 'rate', rate, { min: 0, max: 0.99 });
  checkNumber('burstyLoss', 'meanBurst', meanBurst, { min: 1, max: 1_000_000 });
  const badToGood = 1 / meanBurst;
  // rate = p / (p + r), solved for p.
  return { model: 'gilbert-elliott', goodToBad: (rate * badToGood) / (1 - rate), badToGood };
}

/** Returns a function that says, heartbeat after heartbeat, whether each is lost. */
export function lossSampler(loss: LossModel, random: Random): () => boolean {
  const model = checkLossModel(loss);
  switch (model.model) {
    case 'none':
      return () => false;
    case 'independent':
      return () => random.next() < model.probability;
    case 'gilbert-elliott': {
      const { goodToBad, badToGood } = model;
      const inGood = model.lossInGood ?? 0;
      const inBad = model.lossInBad ?? 1;
      // Start in the stationary distribution, so the first hour looks like any other.
      const total = goodToBad + badToGood;
      let bad = random.next() < goodToBad / total;
      return () => {
        const lost = random.next() < (bad ? inBad : inGood);
        bad = random.next() < (bad ? 1 - badToGood : goodToBad);
        return lost;
      };
    }
  }
}
