/** The equivalent mutants of src/swim/: see ../equivalents.ts. */
import type { Equivalent } from '../equivalent.js';

export const SWIM: readonly Equivalent[] = [];
