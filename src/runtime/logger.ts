/**
 * The logger fdkit writes to: pino's method shape, which `console` fits too. Also what fdkit makes of
 * one: a logger per component (pino's `child` when there is one, bindings merged into every line's fields
 * when there is not), the silent default, and the check of a `logger` option.
 */
import { InvalidOptionError } from '../errors.js';
import { describeReceived } from '../options.js';

/** The levels fdkit logs at, least severe first. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;

/** One of {@link LOG_LEVELS}. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Fields that a component logger adds to every line, such as `{ component: 'node' }`. */
export type LogBindings = Readonly<Record<string, unknown>>;

/**
 * What fdkit logs through: every line is one call `level(fields, message)`, structured fields first and
 * a short fixed message second, as pino takes them. A pino logger fits, and so does `console` (it prints
 * the fields, then the message); anything with these four methods does.
 *
 * fdkit logs at `debug` what it also counts (a dropped datagram, a failed state sync), at `info` what an
 * operator may want to follow (started, stopped, a lease lost), and at `warn` what an operator should see
 * (a handler that threw, a keep-alive stream that failed). `error` is for a failure it cannot recover
 * from; nothing logs there today, but a logger must have it, as pino and `console` do.
 *
 * @example
 * ```ts
 * import { pino } from 'pino';
 * const node = createNode({ logger: pino({ level: 'info' }) }); // lines carry { component: 'node' }
 * const plain = createNode({ logger: console }); // the same fields, printed by console
 * ```
 */
export interface Logger {
  /** Logs something fdkit also counts; usually off in production. */
  debug(fields: object, message: string): void;
  /** Logs a step of the lifecycle an operator may want to follow. */
  info(fields: object, message: string): void;
  /** Logs something an operator should look at. */
  warn(fields: object, message: string): void;
  /** Logs a failure that fdkit cannot recover from. */
  error(fields: object, message: string): void;
  /**
   * A logger that adds `bindings` to every line, as pino's `child`. Optional: without it, fdkit wraps
   * the logger and merges the bindings into the fields of every line itself.
   */
  child?(bindings: LogBindings): Logger;
}

/**
 * A logger with only the levels `L` (and perhaps `child`): what a mechanism that logs at fewer levels
 * takes, such as the transports' `TransportLogger`.
 */
export type LevelLogger<L extends LogLevel> = {
  readonly [K in L]: (fields: object, message: string) => void;
} & {
  child?(bindings: LogBindings): LevelLogger<L>;
};

type AnyLevels = { readonly [K in LogLevel]?: (fields: object, message: string) => void };

const ignore = (): void => {};

/** The logger of every option left out: drops every line. */
export const silentLogger: Logger = {
  debug: ignore,
  info: ignore,
  warn: ignore,
  error: ignore,
  child: () => silentLogger,
};

/**
 * A logger that adds `bindings` to every line of `logger`: its own `child` when it has one, otherwise a
 * wrapper that merges them into each line's fields (the line's own fields win), so that the lines of a
 * logger such as `console` still say which component wrote them.
 */
export function childLogger<L extends LogLevel>(
  logger: LevelLogger<L>,
  bindings: LogBindings,
): LevelLogger<L> {
  if (typeof logger.child === 'function') return logger.child(bindings);
  return withBindings(logger, bindings);
}

function withBindings<L extends LogLevel>(logger: LevelLogger<L>, bindings: LogBindings): LevelLogger<L> {
  const levels = logger as AnyLevels;
  const wrapper: { -readonly [K in LogLevel]?: (fields: object, message: string) => void } = {};
  for (const level of LOG_LEVELS) {
    if (typeof levels[level] !== 'function') continue;
    // Looked up at each call, not once: whoever replaces a method later (a test's spy, a reconfigured
    // logger) still gets the lines. Called on the logger itself, which pino's methods need as `this`.
    wrapper[level] = (fields, message) => levels[level]?.call(logger, { ...bindings, ...fields }, message);
  }
  // The wrapper has exactly the levels `logger` has, which are `L`'s; TypeScript cannot follow the loop.
  return Object.assign(wrapper, {
    child: (more: LogBindings) => withBindings(logger, { ...bindings, ...more }),
  }) as unknown as LevelLogger<L>;
}

/**
 * Checks the `logger` option of `owner` (undefined is the silent default): an object with a method for
 * each of `levels`, and a `child` method if it has a `child`. A logger missing a method would otherwise
 * fail with a `TypeError` at its first line, long after the options were given.
 *
 * @throws {@link InvalidOptionError} `FDKIT_INVALID_OPTION`, naming `owner`, the option and what it got
 */
export function checkLogger(owner: string, value: unknown, levels: readonly LogLevel[] = LOG_LEVELS): void {
  if (value === undefined) return;
  const wanted = `an object with the methods ${listed(levels)} (a pino logger, or console)`;
  if (typeof value !== 'object' || value === null) {
    throw invalid(owner, `option logger must be ${wanted}, got ${describeReceived(value)}`);
  }
  const methods = value as Record<string, unknown>;
  for (const name of [...levels, 'child']) {
    const method = methods[name];
    if (typeof method === 'function' || (name === 'child' && method === undefined)) continue;
    throw invalid(
      owner,
      `option logger must be ${wanted}${name === 'child' ? ', its child a method if present' : ''}, got an object whose ${name} is ${describeReceived(method)}`,
    );
  }
}

function invalid(owner: string, message: string): InvalidOptionError {
  return new InvalidOptionError('FDKIT_INVALID_OPTION', 'logger', `${owner}: ${message}`);
}

function listed(words: readonly string[]): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}
