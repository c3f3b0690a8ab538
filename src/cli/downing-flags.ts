/**
 * The flags that choose a split-brain strategy, `--downing STRATEGY [--quorum-size N]
 * [--stable-after-ms MS]`, shared by `fdkit agent` and `fdkit sim` so that both take the same names.
 */
import type { DowningStrategy, LeaseMajorityStrategy } from '../downing/downing-types.js';
import { type ParsedFlags, stringFlag, UsageError } from './args.js';

/** The flags' specs, for `commandFlags`. */
export const DOWNING_FLAGS = {
  downing: { kind: 'string' },
  'quorum-size': { kind: 'integer', min: 1, max: 1_000_000 },
  'stable-after-ms': { kind: 'number', min: 1, max: 3_600_000 },
} as const;

/** The strategies that need nothing but flags. */
export type FlagStrategy = Exclude<DowningStrategy, LeaseMajorityStrategy>;

/** Lease-majority as a flag names it, for a command that brings the lease itself (the simulator). */
export interface FlagLeaseMajority {
  /** `lease-majority`. */
  readonly name: 'lease-majority';
}

/** A strategy and its wait, as the flags give them. */
export interface DowningFlagsSpec<S = FlagStrategy> {
  readonly strategy: S;
  readonly stableAfterMs: number | undefined;
}

const STRATEGIES = [
  'keep-majority',
  'static-quorum',
  'keep-oldest',
  'keep-oldest-down-if-alone',
  'down-all',
  'lease-majority',
];

/**
 * The strategy `command`'s flags ask for, or undefined without `--downing`; `dependents` are the other
 * flags that need `--downing`. `leaseHint` says what to use instead of lease-majority, which needs a
 * lease the command cannot make; without one, the command brings the lease (the simulator models it).
 */
export function downingFromFlags(
  command: string,
  flags: ParsedFlags,
  dependents: readonly string[],
  leaseHint: string,
): DowningFlagsSpec | undefined;
export function downingFromFlags(
  command: string,
  flags: ParsedFlags,
  dependents: readonly string[],
  leaseHint: undefined,
): DowningFlagsSpec<FlagStrategy | FlagLeaseMajority> | undefined;
export function downingFromFlags(
  command: string,
  flags: ParsedFlags,
  dependents: readonly string[],
  leaseHint: string | undefined,
): DowningFlagsSpec<FlagStrategy | FlagLeaseMajority> | undefined {
  const name = stringFlag(flags, 'downing');
  const quorum = flags.get('quorum-size');
  const stable = flags.get('stable-after-ms');
  if (name === undefined) {
    for (const flag of dependents) {
      if (flags.has(flag)) throw new UsageError(`${command}: --${flag} needs --downing`);
    }
    return undefined;
  }
  if (name === 'lease-majority' && leaseHint !== undefined) {
    throw new UsageError(`${command}: --downing lease-majority needs a lease ${leaseHint}`);
  }
  const offered = leaseHint === undefined ? STRATEGIES : STRATEGIES.filter((s) => s !== 'lease-majority');
  if (!offered.includes(name)) {
    throw new UsageError(`${command}: --downing takes ${offered.join(', ')}, got '${name}'`);
  }
  if ((name === 'static-quorum') !== (typeof quorum === 'number')) {
    throw new UsageError(`${command}: --quorum-size N goes with --downing static-quorum, and only with it`);
  }
  const strategy: FlagStrategy | FlagLeaseMajority =
    name === 'static-quorum'
      ? { name, quorumSize: quorum as number }
      : name === 'keep-oldest' || name === 'keep-oldest-down-if-alone'
        ? { name: 'keep-oldest', downIfAlone: name === 'keep-oldest-down-if-alone' }
        : { name: name as 'keep-majority' | 'down-all' | 'lease-majority' };
  return { strategy, stableAfterMs: typeof stable === 'number' ? stable : undefined };
}
