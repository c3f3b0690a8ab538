/** The equivalent mutants of src/heartbeat/: see ../equivalents.ts. */
import type { Equivalent } from '../equivalent.js';

export const HEARTBEAT: readonly Equivalent[] = [];
