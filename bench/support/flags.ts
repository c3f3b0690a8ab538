/**
 * The command lines of the bench scripts: the CLI's parser (`src/cli/args.ts`, on `node:util`'s
 * `parseArgs`) with the benches' convention for mistakes, the message and the usage on stderr and
 * status 2, and `--help` (`-h`), which prints the usage.
 */
import { type FlagSpec, type ParsedFlags, parseFlags, UsageError } from '../../src/cli/args.js';

export { listFlag, numberFlag, stringFlag } from '../../src/cli/args.js';

/** Says what is wrong with the command line, and the usage, on stderr; exits with status 2. */
export function usageError(message: string, usage: string): never {
  process.stderr.write(`${message}\n${usage}\n`);
  process.exit(2);
}

/**
 * Parses the flags of the bench script `program` (`bench/codec.ts`, which starts every message);
 * exits 2 with the message and `usage` on a mistake, 0 after printing `usage` for `--help`.
 */
export function benchFlags(
  program: string,
  usage: string,
  argv: readonly string[],
  specs: Readonly<Record<string, FlagSpec>>,
): ParsedFlags {
  let flags: ParsedFlags;
  try {
    flags = parseFlags(program, argv, { ...specs, help: { kind: 'boolean', short: 'h' } });
  } catch (error) {
    if (error instanceof UsageError) usageError(error.message, usage);
    throw error;
  }
  if (flags.has('help')) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  return flags;
}
