/**
 * Validation of option objects. Each check throws an {@link InvalidOptionError} whose message names the
 * option, the value received and the allowed range, so a misconfiguration is fixed from the message alone.
 */
import { InvalidOptionError } from './errors.js';

/** The allowed range of a numeric option. Bounds are inclusive unless marked exclusive. */
export interface NumberRange {
  readonly min?: number;
  readonly max?: number;
  readonly minExclusive?: boolean;
  readonly integer?: boolean;
}

function describeRange(range: NumberRange): string {
  const kind = range.integer ? 'an integer' : 'a number';
  const lower = range.min === undefined ? '' : `${range.minExclusive ? '>' : '>='} ${range.min}`;
  const upper = range.max === undefined ? '' : `<= ${range.max}`;
  const bounds = [lower, upper].filter((b) => b !== '').join(' and ');
  return bounds === '' ? kind : `${kind} ${bounds}`;
}

/**
 * The value an option received, with its type, for a message: `"5" (a string)`, `5 (a number)`,
 * `undefined`, `an array`, `an object`. Primitives are shown because the typo is usually in them; objects
 * are not, since they can be large or hold secrets.
 */
export function describeReceived(value: unknown): string {
  if (value === undefined || value === null) return String(value);
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return `${JSON.stringify(value)} (a string)`;
    case 'number':
    case 'boolean':
      return `${String(value)} (a ${typeof value})`;
    case 'bigint':
      return `${String(value)}n (a bigint)`;
    case 'object':
      return 'an object';
    default:
      return `a ${typeof value}`;
  }
}

/**
 * Returns `value` when it is a number within `range`, otherwise throws.
 *
 * @param owner - what the option belongs to, for the message (e.g. `PhiAccrualDetector`)
 */
export function checkNumber(owner: string, option: string, value: unknown, range: NumberRange): number {
  const ok =
    typeof value === 'number' &&
    !Number.isNaN(value) &&
    (range.integer !== true || Number.isInteger(value)) &&
    (range.min === undefined || (range.minExclusive ? value > range.min : value >= range.min)) &&
    (range.max === undefined || value <= range.max) &&
    (Number.isFinite(value) || range.max === Number.POSITIVE_INFINITY);
  if (!ok) {
    throw new InvalidOptionError(
      'FDKIT_INVALID_OPTION',
      option,
      `${owner}: option ${option} must be ${describeRange(range)}, got ${describeReceived(value)}`,
    );
  }
  return value as number;
}

/** Returns `value` when it is a non-empty string, otherwise throws. */
export function checkNonEmptyString(owner: string, option: string, value: unknown): string {
  if (typeof value === 'string' && value !== '') return value;
  throw new InvalidOptionError(
    'FDKIT_INVALID_OPTION',
    option,
    `${owner}: option ${option} must be a non-empty string, got ${describeReceived(value)}`,
  );
}

/** Returns `value` when it is one of `allowed`, otherwise throws. */
export function checkChoice<T extends string>(
  owner: string,
  option: string,
  value: unknown,
  allowed: readonly T[],
): T {
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  throw new InvalidOptionError(
    'FDKIT_INVALID_OPTION',
    option,
    `${owner}: option ${option} must be one of ${allowed.map((a) => `'${a}'`).join(', ')}, got ${describeReceived(value)}`,
  );
}

/**
 * Rejects keys that the owner does not know. A misspelt option (`treshold`) would otherwise be ignored in
 * silence and the default used, which is the worst way to learn about a typo.
 *
 * @param path - what precedes each key in the messages and `option`, for options nested in another
 *   option (`config.`); empty for the top level
 */
export function checkKnownKeys(owner: string, options: object, known: readonly string[], path = ''): void {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidOptionError(
      'FDKIT_INVALID_OPTION',
      path === '' ? '(options)' : path.slice(0, -1),
      `${owner}: ${path === '' ? 'options' : `option ${path.slice(0, -1)}`} must be an object, got ${describeReceived(options)}`,
    );
  }
  for (const [key, value] of Object.entries(options)) {
    const option = `${path}${key}`;
    if (value === null) {
      throw new InvalidOptionError(
        'FDKIT_INVALID_OPTION',
        option,
        `${owner}: option ${option} must not be null; leave it out for its default`,
      );
    }
    if (!known.includes(key)) {
      throw new InvalidOptionError(
        'FDKIT_UNKNOWN_OPTION',
        option,
        `${owner}: unknown option ${option}; known options are ${known.join(', ')}`,
      );
    }
  }
}
