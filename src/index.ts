/**
 * fdkit: failure detection for clustered Node.js services. The package root exports the whole public
 * API; each capability is also a subpath of its own (`fdkit/detector`, `fdkit/swim`, `fdkit/node`,
 * `fdkit/sim`, `fdkit/fencing`, `fdkit/tune`, `fdkit/metrics`, `fdkit/http`), which loads only the modules that
 * capability needs. See docs/design.md for the layers.
 *
 * @module fdkit
 */

export * from './entries/detector.js';
export * from './entries/fencing.js';
export * from './entries/http.js';
export * from './entries/metrics.js';
export * from './entries/node.js';
export * from './entries/sim.js';
export * from './entries/swim.js';
export * from './entries/tune.js';
export {
  AbortError,
  FenceError,
  type FenceErrorCode,
  InvalidArgumentError,
  type InvalidOptionCode,
  InvalidOptionError,
  JoinError,
  type JoinErrorCode,
  type JoinSeedOutcome,
  KeyringError,
  type KeyringErrorCode,
  LeaseError,
  type LeaseErrorCode,
  type LifecycleCode,
  LifecycleError,
  MissingDependencyError,
  NetworkError,
  type NetworkErrorCode,
  StaleTokenError,
  TraceFormatError,
} from './errors.js';
