/**
 * fdkit: failure detection for clustered Node.js services. The package root exports the public API;
 * see DESIGN.md for the layers.
 */

export { ChenDetector, type ChenOptions } from './detector/chen.js';
export type { FailureDetector } from './detector/failure-detector.js';
export { FixedTimeoutDetector, type FixedTimeoutOptions } from './detector/fixed-timeout.js';
export { PHI_FACTOR, phi } from './detector/phi.js';
export { PhiAccrualDetector, type PhiAccrualOptions } from './detector/phi-accrual.js';
export { DetectorRegistry } from './detector/registry.js';
export { InvalidArgumentError, type InvalidOptionCode, InvalidOptionError } from './errors.js';
export type { Clock, Timer } from './runtime/clock.js';
export { Random } from './runtime/random.js';
export { createSystemClock, entropySeed, type SystemClockOptions, systemClock } from './runtime/system.js';
export { VirtualClock, type VirtualClockOptions } from './runtime/virtual-clock.js';
export { resolveSwimConfig, SWIM_CONFIG_KEYS, type SwimConfig } from './swim/config.js';
export { lan, local, type ProfileName, profiles, wan } from './swim/profiles.js';
export { expectedTiming, type Timing } from './swim/timing.js';
