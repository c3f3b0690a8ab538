/** The equivalent mutants of src/detector/: see ../equivalents.ts. */
import type { Equivalent } from '../equivalent.js';

export const DETECTOR: readonly Equivalent[] = [];
