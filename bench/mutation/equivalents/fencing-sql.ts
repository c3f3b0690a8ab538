/** Equivalent mutants of src/fencing/sql/: see ../equivalents.ts. */
import type { Equivalent } from '../equivalent.js';

export const FENCING_SQL: readonly Equivalent[] = [];
