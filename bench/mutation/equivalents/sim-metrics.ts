/** The equivalent mutants of src/sim/metrics.ts: see ../equivalents.ts. */
import type { Equivalent } from '../equivalent.js';

export const SIM_METRICS: readonly Equivalent[] = [
  {
    file: 'src/sim/metrics.ts',
    mutator: 'UnaryOperator',
    original: '-1',
    replacement: '+1',
    why:
      'joiner is read only while joinKnownAt is defined (record() tests `member === this.joiner && ' +
      'this.joinKnownAt !== undefined`, joinAllKnowMs() returns null first), and joined() sets both ' +
      'together: its value before the first join, -1 or +1, is never used.',
  },
];
