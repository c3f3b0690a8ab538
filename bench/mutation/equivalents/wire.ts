/** The equivalent mutants of src/wire/: see ../equivalents.ts. */
import type { Equivalent } from '../equivalent.js';

export const WIRE: readonly Equivalent[] = [];
