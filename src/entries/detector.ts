/**
 * `fdkit/detector`: failure detectors on their own, for a caller that carries its own heartbeats. Phi
 * accrual (Akka's normal model, Cassandra's exponential one), Chen's estimate of the next arrival, a
 * fixed timeout, and a registry that keeps one detector per peer. Nothing here does I/O or loads a
 * dependency: importing it loads these modules, the error classes and the system clock.
 *
 * @module fdkit/detector
 */
export { ChenDetector, type ChenOptions } from '../detector/chen.js';
export type { FailureDetector } from '../detector/failure-detector.js';
export { FixedTimeoutDetector, type FixedTimeoutOptions } from '../detector/fixed-timeout.js';
export { PHI_FACTOR, phi } from '../detector/phi.js';
export { PhiAccrualDetector, type PhiAccrualOptions } from '../detector/phi-accrual.js';
export { DetectorRegistry } from '../detector/registry.js';
export {
  ClockMismatchError,
  InvalidArgumentError,
  type InvalidOptionCode,
  InvalidOptionError,
} from '../errors.js';
export type { Clock, Timer } from '../runtime/clock.js';
