/** One undetected mutant's disposition: why no test can kill it (lists in equivalents/). */
export interface Equivalent {
  /** Path from the repository root, e.g. `src/detector/phi.ts`. */
  readonly file: string;
  /** Stryker's mutator name, e.g. `ConditionalExpression`. */
  readonly mutator: string;
  /** The source text the mutant replaces. */
  readonly original: string;
  readonly replacement?: string;
  readonly line?: number;
  readonly why: string;
}
