/**
 * A strict parser for `--flag value` and `--flag=value` command lines, on `node:util`'s `parseArgs`:
 * unknown flags and malformed values are errors with a message that names the flag and the value
 * received and says what to type instead, never silently ignored.
 */
import { parseArgs } from 'node:util';

/** A command-line mistake; the CLI prints the message and exits with status 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  readonly code = 'FDKIT_USAGE';
}

/**
 * `--help` or `-h` was given: not a mistake. Thrown from wherever the flags are read, so that a command
 * stops before it checks or starts anything; the CLI prints the command's usage and exits with status 0.
 */
export class HelpRequested extends Error {
  override readonly name = 'HelpRequested';
}

/** What one flag takes, and the range of a numeric value. */
export interface FlagSpec {
  /** `list` takes a value each time it is given, and splits each on commas. */
  readonly kind: 'integer' | 'number' | 'boolean' | 'string' | 'list';
  readonly min?: number;
  readonly max?: number;
  /** A one-letter alias, as `-h` for `--help`. */
  readonly short?: string;
}

/** Parsed flags by name: numbers for numeric flags, true for boolean flags that were given. */
export type ParsedFlags = Map<string, number | boolean | string | string[]>;

/**
 * Parses `argv` (without the command name) against `specs`; a repeated flag keeps its last value.
 * `program` starts every message (`fdkit sim`, `bench/codec.ts`).
 *
 * parseArgs runs non-strict and this function judges its tokens: in strict mode parseArgs refuses a
 * value that starts with a dash (`--loss -1` would be "ambiguous" rather than out of range), and its
 * errors name neither the value received nor the flags known.
 */
export function parseFlags(
  program: string,
  argv: readonly string[],
  specs: Readonly<Record<string, FlagSpec>>,
): ParsedFlags {
  const parsed: ParsedFlags = new Map();
  for (const token of tokensOf(argv, specs)) {
    const spec = token.kind === 'option' ? specs[token.name] : undefined;
    if (token.kind !== 'option' || spec === undefined) {
      const known = Object.keys(specs).map((k) => `--${k}`);
      throw new UsageError(
        `${program}: unexpected argument '${argv[token.index]}'${known.length > 0 ? `; known flags: ${known.join(', ')}` : ''}`,
      );
    }
    const flag = `--${token.name}`;
    if (spec.kind === 'boolean') {
      if (token.value !== undefined)
        throw new UsageError(`${program}: flag ${flag} takes no value, got '${token.value}'`);
      parsed.set(token.name, true);
      continue;
    }
    const raw = token.value;
    if (raw === undefined) throw new UsageError(`${program}: flag ${flag} needs a value`);
    if (spec.kind === 'list') {
      const list = (parsed.get(token.name) as string[] | undefined) ?? [];
      list.push(...raw.split(',').filter((item) => item !== ''));
      parsed.set(token.name, list);
      continue;
    }
    parsed.set(token.name, spec.kind === 'string' ? raw : parseNumber(program, flag, raw, spec));
  }
  return parsed;
}

/**
 * {@link parseFlags} for a command of `fdkit`, which also takes `--help` and `-h`. Help given anywhere
 * among the flags (not as the value of one: `--meta -h` is metadata) wins over every mistake beside it,
 * as in git and npm: it throws {@link HelpRequested} before any flag is judged.
 */
export function commandFlags(
  program: string,
  argv: readonly string[],
  specs: Readonly<Record<string, FlagSpec>>,
): ParsedFlags {
  const withHelp = { ...specs, help: { kind: 'boolean', short: 'h' } } as const;
  if (tokensOf(argv, withHelp).some((t) => t.kind === 'option' && t.name === 'help')) {
    throw new HelpRequested(`${program} --help`);
  }
  return parseFlags(program, argv, withHelp);
}

function tokensOf(argv: readonly string[], specs: Readonly<Record<string, FlagSpec>>) {
  const options: Record<string, { type: 'boolean' | 'string'; short?: string }> = {};
  for (const [name, spec] of Object.entries(specs)) {
    options[name] = {
      type: spec.kind === 'boolean' ? 'boolean' : 'string',
      ...(spec.short === undefined ? {} : { short: spec.short }),
    };
  }
  return parseArgs({ args: [...argv], options, strict: false, allowPositionals: true, tokens: true }).tokens;
}

function parseNumber(program: string, flag: string, raw: string, spec: FlagSpec): number {
  const value = Number(raw);
  const kind = spec.kind === 'integer' ? 'an integer' : 'a number';
  const range = `${spec.min === undefined ? '' : ` >= ${spec.min}`}${spec.max === undefined ? '' : ` <= ${spec.max}`}`;
  const ok =
    raw.trim() !== '' &&
    Number.isFinite(value) &&
    (spec.kind !== 'integer' || Number.isSafeInteger(value)) &&
    (spec.min === undefined || value >= spec.min) &&
    (spec.max === undefined || value <= spec.max);
  if (!ok) throw new UsageError(`${program}: flag ${flag} takes ${kind}${range}, got '${raw}'`);
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
