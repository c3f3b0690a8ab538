/** Equivalent mutants of src/wire/ (one group of its files, so that each can be worked on apart): see ../equivalents.ts. */
import type { Equivalent } from '../equivalent.js';

export const WIRE_DECODE: readonly Equivalent[] = [];
