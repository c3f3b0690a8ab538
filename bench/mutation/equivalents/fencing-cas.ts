/** Equivalent mutants of src/fencing/cas/: see ../equivalents.ts. */
import type { Equivalent } from '../equivalent.js';

export const FENCING_CAS: readonly Equivalent[] = [
  {
    file: 'src/fencing/cas/memory-store.ts',
    mutator: 'ConditionalExpression',
    original: 'expected === undefined',
    replacement: 'false',
    why:
      'The mutant always computes `current?.version === expected`. With expected undefined that is ' +
      '`current === undefined` as the original has it: no record gives undefined === undefined (true), and ' +
      'a record gives its version, always a bigint (StoredRecord.version is only ever set from ' +
      'this.revision, a bigint, in compareAndSet), which is never undefined (false). With expected defined ' +
      'both take the same branch.',
  },
];
