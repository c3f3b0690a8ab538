/**
 * Set up for the tests Stryker runs against each mutant (vitest.mutate.config.ts). A property that a
 * mutant breaks fails at its first counterexample either way; shrinking it to the smallest one, which
 * helps a person read the failure, only costs the mutation run time, so it is skipped here.
 */
import fc from 'fast-check';

fc.configureGlobal({ endOnFailure: true });
