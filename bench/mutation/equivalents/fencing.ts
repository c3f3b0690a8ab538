/** The equivalent mutants of src/fencing/: see ../equivalents.ts. */
import type { Equivalent } from '../equivalent.js';

export const FENCING: readonly Equivalent[] = [];
