/**
 * A small, strict parser for `--flag value` command lines: unknown flags and malformed values are errors
 * with a message that says what to type instead, never silently ignored.
 */

/** A command-line mistake; the CLI prints the message and exits with status 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  readonly code = 'FDKIT_USAGE';
}

/** What one flag takes, and the range of a numeric value. */
export interface FlagSpec {
  /** `list` takes a value each time it is given, and splits each on commas. */
  readonly kind: 'integer' | 'number' | 'boolean' | 'string' | 'list';
  readonly min?: number;
  readonly max?: number;
}

/** Parsed flags by name: numbers for numeric flags, true for boolean flags that were given. */
export type ParsedFlags = Map<string, number | boolean | string | string[]>;

/** Parses `argv` (without the command name) against `specs`; a repeated flag keeps its last value. */
export function parseFlags(
  command: string,
  argv: readonly string[],
  specs: Readonly<Record<string, FlagSpec>>,
): ParsedFlags {
  const parsed: ParsedFlags = new Map();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const name = arg.startsWith('--') ? arg.slice(2) : '';
    const spec = specs[name];
    if (spec === undefined) {
      const known = Object.keys(specs).map((k) => `--${k}`);
      throw new UsageError(
        `fdkit ${command}: unexpected argument '${arg}'${known.length > 0 ? `; known flags: ${known.join(', ')}` : ''}`,
      );
    }
    if (spec.kind === 'boolean') {
      parsed.set(name, true);
      continue;
    }
    const raw = argv[++i];
    if (raw === undefined) throw new UsageError(`fdkit ${command}: flag ${arg} needs a value`);
    if (spec.kind === 'list') {
      const list = (parsed.get(name) as string[] | undefined) ?? [];
      list.push(...raw.split(',').filter((item) => item !== ''));
      parsed.set(name, list);
      continue;
    }
    parsed.set(name, spec.kind === 'string' ? raw : parseNumber(command, arg, raw, spec));
  }
  return parsed;
}

function parseNumber(command: string, flag: string, raw: string, spec: FlagSpec): number {
  const value = Number(raw);
  const kind = spec.kind === 'integer' ? 'an integer' : 'a number';
  const range = `${spec.min === undefined ? '' : ` >= ${spec.min}`}${spec.max === undefined ? '' : ` <= ${spec.max}`}`;
  const ok =
    raw.trim() !== '' &&
    Number.isFinite(value) &&
    (spec.kind !== 'integer' || Number.isSafeInteger(value)) &&
    (spec.min === undefined || value >= spec.min) &&
    (spec.max === undefined || value <= spec.max);
  if (!ok) throw new UsageError(`fdkit ${command}: flag ${flag} takes ${kind}${range}, got '${raw}'`);
  return value;
}

/** The numeric value of `flag`, or `fallback` when it was not given. */
export function numberFlag(flags: ParsedFlags, flag: string, fallback: number): number {
  const value = flags.get(flag);
  return typeof value === 'number' ? value : fallback;
}

/** The string value of `flag`, or undefined when it was not given. */
export function stringFlag(flags: ParsedFlags, flag: string): string | undefined {
  const value = flags.get(flag);
  return typeof value === 'string' ? value : undefined;
}

/** The values of a `list` flag, empty when it was not given. */
export function listFlag(flags: ParsedFlags, flag: string): string[] {
  const value = flags.get(flag);
  return Array.isArray(value) ? value : [];
}
