/**
 * Typed errors for caller mistakes. Every class carries a stable `code` so that callers can branch on it
 * without parsing messages; messages name the offending option or argument and what is allowed.
 *
 * Bytes that arrive from the network never produce these: they are dropped and counted instead.
 */

/** Stable codes of {@link InvalidOptionError}. */
export type InvalidOptionCode = 'FDKIT_INVALID_OPTION' | 'FDKIT_UNKNOWN_OPTION';

/**
 * An option passed to a constructor or factory is out of its range, of the wrong type, or unknown.
 *
 * @example
 * ```ts
 * try { new PhiAccrualDetector({ threshold: -1 }); }
 * catch (e) { if (e instanceof InvalidOptionError) console.log(e.code, e.option); }
 * // FDKIT_INVALID_OPTION threshold
 * ```
 */
export class InvalidOptionError extends RangeError {
  override readonly name = 'InvalidOptionError';
  /** Stable machine-readable code. */
  readonly code: InvalidOptionCode;
  /** The name of the offending option, as the caller spelled it. */
  readonly option: string;

  constructor(code: InvalidOptionCode, option: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.option = option;
  }
}

/**
 * An argument of a method call is unusable (not a finite number, a timestamp that goes back in time).
 * Its `code` is always `FDKIT_INVALID_ARGUMENT`.
 */
export class InvalidArgumentError extends RangeError {
  override readonly name = 'InvalidArgumentError';
  /** Stable machine-readable code. */
  readonly code = 'FDKIT_INVALID_ARGUMENT';
  /** The name of the offending argument. */
  readonly argument: string;

  constructor(argument: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.argument = argument;
  }
}

/** Stable codes of {@link LifecycleError}. */
export type LifecycleCode = 'FDKIT_NOT_STARTED' | 'FDKIT_ALREADY_STARTED' | 'FDKIT_STOPPED';

/**
 * A method was called in the wrong phase of a member's life: `join` before `start`, `start` twice, or
 * anything after `stop`.
 */
export class LifecycleError extends Error {
  override readonly name = 'LifecycleError';
  /** Stable machine-readable code. */
  readonly code: LifecycleCode;

  constructor(code: LifecycleCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}
