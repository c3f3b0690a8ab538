/** Equivalent mutants of src/fencing/cas/: see ../equivalents.ts. */
import type { Equivalent } from '../equivalent.js';

export const FENCING_CAS: readonly Equivalent[] = [];
