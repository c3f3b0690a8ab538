/**
 * Typed errors for caller mistakes. Every class carries a stable `code` so that callers can branch on it
 * without parsing messages; messages name the offending option or argument and what is allowed.
 *
 * Bytes that arrive from the network never produce these: they are dropped and counted instead.
 */

import type { JoinRefusalCode } from './swim/refusal.js';

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
  /** `'InvalidOptionError'`: the class name, kept through minification (for logs and `String(error)`). */
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
  /** `'InvalidArgumentError'`: the class name, kept through minification (for logs and `String(error)`). */
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

/**
 * An error whose stable `code` is one of `C`: what the errors below with a code and nothing else share.
 * Exported for the declarations of its subclasses; catch the subclasses, not this.
 */
export class CodedError<C extends string> extends Error {
  /** Stable machine-readable code. */
  readonly code: C;

  constructor(code: C, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}

/** Stable codes of {@link LifecycleError}. */
export type LifecycleCode = 'FDKIT_NOT_STARTED' | 'FDKIT_ALREADY_STARTED' | 'FDKIT_STOPPED';

/**
 * A method was called in the wrong phase of a member's life: `join` before `start`, `start` twice, or
 * anything after `stop`.
 */
export class LifecycleError extends CodedError<LifecycleCode> {
  /** `'LifecycleError'`: the class name, kept through minification (for logs and `String(error)`). */
  override readonly name = 'LifecycleError';
}

/**
 * A `start()` or other wait was given up because its `signal` aborted. Its `name` is `'AbortError'`, as
 * for `fetch` and the DOM, so code that already tells an abort from a failure by name keeps working; its
 * `code` is always `FDKIT_ABORTED` and its `cause` the signal's reason (a `TimeoutError` for
 * `AbortSignal.timeout`).
 *
 * @example
 * ```ts
 * try { await node.start({ signal: AbortSignal.timeout(5000) }); }
 * catch (e) { if (e instanceof AbortError) console.log(e.code, e.cause); } // FDKIT_ABORTED TimeoutError…
 * ```
 */
export class AbortError extends CodedError<'FDKIT_ABORTED'> {
  /** `'AbortError'`: the name aborts carry in the platform, kept through minification. */
  override readonly name = 'AbortError';

  constructor(message: string, reason: unknown) {
    super('FDKIT_ABORTED', message, { cause: reason });
  }
}

/** Stable codes of {@link NetworkError}. */
export type NetworkErrorCode =
  /** Another socket holds the address: pick another port, or port 0 for an ephemeral one. */
  | 'FDKIT_ADDRESS_IN_USE'
  /** An address string is not `host:port` (IPv6 in brackets) with a port in range. */
  | 'FDKIT_BAD_ADDRESS'
  /** Binding failed for another reason: the host is not local, a privileged port, no IPv6. */
  | 'FDKIT_BIND_FAILED'
  /** No connection could be opened: refused, unreachable, or the connect timeout passed. */
  | 'FDKIT_CONNECT_FAILED'
  /** Connected, but the peer reset or closed the connection before confirming the whole message. */
  | 'FDKIT_STREAM_FAILED'
  /** Connected, but the message was not written and confirmed within the stream timeout. */
  | 'FDKIT_STREAM_TIMEOUT'
  /** A datagram could not be handed to the network (reported through a hook, never thrown). */
  | 'FDKIT_SEND_FAILED'
  /** A host name or SRV name gave no address. */
  | 'FDKIT_RESOLVE_FAILED';

/**
 * Binding, connecting, sending or resolving failed. The message says what to change; `address` is the
 * address involved (when there is one) and `cause` the operating system's error.
 *
 * @example
 * ```ts
 * try { await createNetTransport({ bind: '127.0.0.1:7946' }); }
 * catch (e) { if (e instanceof NetworkError && e.code === 'FDKIT_ADDRESS_IN_USE') retryElsewhere(); }
 * ```
 */
export class NetworkError extends Error {
  /** `'NetworkError'`: the class name, kept through minification (for logs and `String(error)`). */
  override readonly name = 'NetworkError';
  /** Stable machine-readable code. */
  readonly code: NetworkErrorCode;
  /** The `host:port` (or seed) the operation was about, when there is one. */
  readonly address: string | undefined;

  constructor(code: NetworkErrorCode, address: string | undefined, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.address = address;
  }
}

/** Stable codes of {@link JoinError}: a seed's refusal, or `FDKIT_CONNECT_FAILED` when no seed answered. */
export type JoinErrorCode = JoinRefusalCode | 'FDKIT_CONNECT_FAILED';

/** What became of one seed of a failed join. */
export interface JoinSeedOutcome {
  /** The seed, as given to `join` (a name resolves to each of its addresses). */
  readonly seed: string;
  /** The seed's refusal code, or `FDKIT_CONNECT_FAILED` when it could not be reached or did not answer. */
  readonly code: JoinErrorCode;
  /** Why, in words: the seed's reason, or what failed on the way. */
  readonly reason: string;
}

/**
 * No seed accepted a `join()`: each refused it (a wrong key or label, a name conflict, a filter) or
 * could not be reached. `code` is the first refusal's code in seed order, or `FDKIT_CONNECT_FAILED` when
 * no seed answered at all; `seed` and `reason` are that seed's, and `seeds` tells every seed's outcome.
 * The member stays up and keeps retrying its seeds in the background.
 *
 * @example
 * ```ts
 * try { await node.join(['10.0.0.2:7946']); }
 * catch (e) { if (e instanceof JoinError && e.code === 'FDKIT_JOIN_KEY_MISMATCH') fixTheKeys(); }
 * ```
 */
export class JoinError extends CodedError<JoinErrorCode> {
  /** `'JoinError'`: the class name, kept through minification (for logs and `String(error)`). */
  override readonly name = 'JoinError';
  /** The seed whose outcome gave `code`. */
  readonly seed: string;
  /** Why that seed did not take this member in. */
  readonly reason: string;
  /** Every seed's outcome, in the order the seeds were given. */
  readonly seeds: readonly JoinSeedOutcome[];

  constructor(outcome: JoinSeedOutcome, seeds: readonly JoinSeedOutcome[], message: string) {
    super(outcome.code, message);
    this.seed = outcome.seed;
    this.reason = outcome.reason;
    this.seeds = seeds;
  }
}

/**
 * A detector was asked to read its own clock, but its last heartbeat carried a timestamp from another
 * clock: more than an hour ahead of the clock's reading, which one monotonic clock never is. Typically the
 * heartbeats were given `Date.now()` (some 1.7e12 ms) while the detector reads `performance.now()` (ms
 * since the process started), so the silence would come out negative and the peer would stay available
 * forever. Give the detector that clock as its `clock` option and omit the timestamps, or pass the same
 * clock's time to every query. Its `code` is always `FDKIT_CLOCK_MISMATCH`.
 *
 * @example
 * ```ts
 * const fd = new PhiAccrualDetector();
 * fd.heartbeat(Date.now());
 * try { fd.isAvailable(); }
 * catch (e) { if (e instanceof ClockMismatchError) console.log(e.code); } // FDKIT_CLOCK_MISMATCH
 * fd.isAvailable(Date.now()); // fine: the query says which time it is
 * ```
 */
export class ClockMismatchError extends Error {
  /** `'ClockMismatchError'`: the class name, kept through minification (for logs and `String(error)`). */
  override readonly name = 'ClockMismatchError';
  /** Stable machine-readable code. */
  readonly code = 'FDKIT_CLOCK_MISMATCH';
  /** The timestamp the last heartbeat was given, in ms. */
  readonly heartbeatAtMs: number;
  /** What the detector's clock read when the query was made, in ms. */
  readonly clockNowMs: number;

  constructor(heartbeatAtMs: number, clockNowMs: number, message: string, options?: ErrorOptions) {
    super(message, options);
    this.heartbeatAtMs = heartbeatAtMs;
    this.clockNowMs = clockNowMs;
  }
}

/**
 * A trace ({@link Trace}) could not be read: a line is not JSON, a field is missing or out of
 * range, or arrivals go back in time. `line` is the 1-based line number (0 when the text is empty) and
 * the message starts with `source:line:` so that an editor can jump to it. Its `code` is always
 * `FDKIT_BAD_TRACE`.
 *
 * @example
 * ```ts
 * try { parseTrace(text, { source: 'run.jsonl' }); }
 * catch (e) { if (e instanceof TraceFormatError) console.error(e.message); }
 * // run.jsonl:17: "seq" must be an integer in [0, 4294967295], got -1
 * ```
 */
export class TraceFormatError extends Error {
  /** `'TraceFormatError'`: the class name, kept through minification (for logs and `String(error)`). */
  override readonly name = 'TraceFormatError';
  /** Stable machine-readable code. */
  readonly code = 'FDKIT_BAD_TRACE';
  /** The 1-based number of the offending line; 0 when the trace is empty. */
  readonly line: number;

  constructor(line: number, message: string, options?: ErrorOptions) {
    super(message, options);
    this.line = line;
  }
}

/**
 * A fencing token was refused: the resource has already seen a higher one, so a newer holder of the lease
 * has been there and this writer's lease is, or was, lost. The write did not happen. Its `code` is always
 * `FDKIT_STALE_TOKEN`.
 *
 * @example
 * ```ts
 * try { guard.enforce('invoices', lease.token); write(); }
 * catch (e) { if (e instanceof StaleTokenError) stopWorking(`superseded by token ${e.highest}`); }
 * ```
 */
export class StaleTokenError extends Error {
  /** `'StaleTokenError'`: the class name, kept through minification (for logs and `String(error)`). */
  override readonly name = 'StaleTokenError';
  /** Stable machine-readable code. */
  readonly code = 'FDKIT_STALE_TOKEN';
  /** What was written to: a guard's resource name, or `table(key=value)` for a fenced SQL update. */
  readonly resource: string;
  /** The token that was refused. */
  readonly token: bigint;
  /** The highest token the resource had seen, greater than `token`. */
  readonly highest: bigint;

  constructor(resource: string, token: bigint, highest: bigint, options?: ErrorOptions) {
    super(
      `stale fencing token ${token} for ${resource}: it has seen token ${highest}, so a newer lease holder has claimed or written it`,
      options,
    );
    this.resource = resource;
    this.token = token;
    this.highest = highest;
  }
}

/** Stable codes of {@link FenceError}. */
export type FenceErrorCode =
  /** No fence row (or record) exists for the resource or key: nothing could refuse an older token. */
  | 'FDKIT_FENCE_MISSING'
  /** The fence is NULL: every comparison with it is unknown, so a fenced write would match nothing. */
  | 'FDKIT_FENCE_NULL'
  /**
   * The fence is not an integer, or its column compares wrongly: TEXT orders `'10'` before `'9'`, REAL
   * rounds above 2^53. Store it as a 64-bit integer (`BIGINT NOT NULL`).
   */
  | 'FDKIT_FENCE_TYPE'
  /**
   * The fence is below this holder's token: the resource was never claimed with it. Claim it before
   * reading or writing; a resource that goes back below a claimed token has lost data.
   */
  | 'FDKIT_FENCE_NOT_CLAIMED'
  /** The key matched several rows where one was meant; pass `rows: 'many'` to fence them all. */
  | 'FDKIT_FENCE_MANY_ROWS'
  /**
   * A store broke its contract: a compare-and-set kept failing without the fence moving, or returned
   * something other than what was written. The write did not happen.
   */
  | 'FDKIT_FENCE_STORE';

/**
 * A fenced write could not be fenced: the fence it compares with is missing, NULL, of a type that
 * compares wrongly, not claimed, or ambiguous. Nothing was written, and nothing after it in the
 * transaction should be: an unfenced write is exactly what fencing exists to prevent. `resource` names
 * what was fenced (`table(key=value)` in SQL).
 *
 * @example
 * ```ts
 * try { claim.transaction(() => charge(customer)); }
 * catch (e) { if (e instanceof FenceError && e.code === 'FDKIT_FENCE_MISSING') createFenceRow(); }
 * ```
 */
export class FenceError extends CodedError<FenceErrorCode> {
  /** `'FenceError'`: the class name, kept through minification (for logs and `String(error)`). */
  override readonly name = 'FenceError';
  /** What was fenced: a resource name, or `table(key=value)` for SQL. */
  readonly resource: string;

  constructor(code: FenceErrorCode, resource: string, message: string, options?: ErrorOptions) {
    super(code, message, options);
    this.resource = resource;
  }
}

/** Stable codes of {@link LeaseError}. */
export type LeaseErrorCode =
  /** The holder's monotonic clock passed the lease's deadline without a confirmed keep-alive. */
  | 'FDKIT_LEASE_EXPIRED'
  /** The lock service says the lease or its key is gone (expired there, revoked or deleted). */
  | 'FDKIT_LEASE_REVOKED'
  /** The holder released the lease, or closed its provider. */
  | 'FDKIT_LEASE_RELEASED'
  /** The lock service could not be reached or failed the request; `cause` is the client's error. */
  | 'FDKIT_LEASE_UNAVAILABLE'
  /**
   * A renewal is overdue (Chubby's jeopardy): the lease may still be held, but the holder must not act on
   * it until a keep-alive is confirmed again; thrown by `throwUnlessHeld()`, never a `lost` reason.
   */
  | 'FDKIT_LEASE_JEOPARDY'
  /**
   * The lock service's counter outgrew the token's room below the epoch (etcd: a revision of 2^44 or
   * more); no token was issued and nothing is held.
   */
  | 'FDKIT_LEASE_TOKEN_RANGE';

/**
 * A lease ended, or the lock service could not be asked. A lost lease's `lost` signal aborts with one of
 * these as its reason, and `throwIfLost()` throws it.
 *
 * @example
 * ```ts
 * lease.lost.addEventListener('abort', () => console.log((lease.lost.reason as LeaseError).code));
 * ```
 */
export class LeaseError extends Error {
  /** `'LeaseError'`: the class name, kept through minification (for logs and `String(error)`). */
  override readonly name = 'LeaseError';
  /** Stable machine-readable code. */
  readonly code: LeaseErrorCode;
  /** The lease name it is about. */
  readonly lease: string;

  constructor(code: LeaseErrorCode, lease: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.lease = lease;
  }
}

/**
 * An optional peer dependency that a feature needs is not installed: `npm install` the package named by
 * `dependency` (the message gives the command). Its `code` is always `FDKIT_MISSING_DEPENDENCY`.
 */
export class MissingDependencyError extends Error {
  /** `'MissingDependencyError'`: the class name, kept through minification (for logs and `String(error)`). */
  override readonly name = 'MissingDependencyError';
  /** Stable machine-readable code. */
  readonly code = 'FDKIT_MISSING_DEPENDENCY';
  /** The npm package that is missing. */
  readonly dependency: string;

  constructor(dependency: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.dependency = dependency;
  }
}

/** Stable codes of {@link KeyringError}. */
export type KeyringErrorCode =
  /** A key is not a Uint8Array of exactly 32 bytes (AES-256). */
  | 'FDKIT_INVALID_KEY'
  /** A keyring was created without any key: it could neither encrypt nor decrypt. */
  | 'FDKIT_EMPTY_KEYRING'
  /** `use(key)` named a key that is not installed; install it first. */
  | 'FDKIT_KEY_NOT_INSTALLED'
  /** `remove(key)` named the primary key, which encrypts everything sent; `use` another first. */
  | 'FDKIT_REMOVE_PRIMARY_KEY';

/**
 * A keyring operation was given a bad key or would leave the keyring unusable. The keys themselves never
 * appear in the message.
 *
 * @example
 * ```ts
 * try { keyring.remove(keyring.keys()[0]); }
 * catch (e) { if (e instanceof KeyringError) console.log(e.code); } // FDKIT_REMOVE_PRIMARY_KEY
 * ```
 */
export class KeyringError extends CodedError<KeyringErrorCode> {
  /** `'KeyringError'`: the class name, kept through minification (for logs and `String(error)`). */
  override readonly name = 'KeyringError';
}
