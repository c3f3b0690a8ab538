/**
 * The flags that choose a split-brain strategy, `--downing STRATEGY [--quorum-size N]
 * [--stable-after-ms MS]`, shared by `fdkit agent` and `fdkit sim` so that both take the same names.
 */
import type { DowningStrategy } from '../downing/downing-core.js';
import { type ParsedFlags, stringFlag, UsageError } from './args.js';

/** The flags' specs, for `commandFlags`. */
export const DOWNING_FLAGS = {
  downing: { kind: 'string' },
  'quorum-size': { kind: 'integer', min: 1, max: 1_000_000 },
  'stable-after-ms': { kind: 'number', min: 1, max: 3_600_000 },
} as const;

/** A strategy and its wait, as the flags give them. */
export interface DowningFlagsSpec {
  readonly strategy: DowningStrategy;
  readonly stableAfterMs: number | undefined;
}

const STRATEGIES = ['keep-majority', 'static-quorum', 'keep-oldest', 'keep-oldest-down-if-alone', 'down-all'];

/**
 * The strategy `command`'s flags ask for, or undefined without `--downing`; `dependents` are the other
 * flags that need `--downing`. `leaseHint` says what to use instead of lease-majority, which needs a
 * lease no command can make.
 */
export function downingFromFlags(
  command: string,
  flags: ParsedFlags,
  dependents: readonly string[],
  leaseHint: string,
): DowningFlagsSpec | undefined {
  const name = stringFlag(flags, 'downing');
  const quorum = flags.get('quorum-size');
  const stable = flags.get('stable-after-ms');
  if (name === undefined) {
    for (const flag of dependents) {
      if (flags.has(flag)) throw new UsageError(`${command}: --${flag} needs --downing`);
    }
    return undefined;
  }
  if (name === 'lease-majority') {
    throw new UsageError(`${command}: --downing lease-majority needs a lease ${leaseHint}`);
  }
  if (!STRATEGIES.includes(name)) {
    throw new UsageError(`${command}: --downing takes ${STRATEGIES.join(', ')}, got '${name}'`);
  }
  if ((name === 'static-quorum') !== (typeof quorum === 'number')) {
    throw new UsageError(`${command}: --quorum-size N goes with --downing static-quorum, and only with it`);
  }
  const strategy: DowningStrategy =
    name === 'static-quorum'
      ? { name, quorumSize: quorum as number }
      : name === 'keep-oldest' || name === 'keep-oldest-down-if-alone'
        ? { name: 'keep-oldest', downIfAlone: name === 'keep-oldest-down-if-alone' }
        : { name: name as 'keep-majority' | 'down-all' };
  return { strategy, stableAfterMs: typeof stable === 'number' ? stable : undefined };
}
