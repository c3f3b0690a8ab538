/** The equivalent mutants of src/sim/metrics.ts: see ../equivalents.ts. */
import type { Equivalent } from '../equivalent.js';

export const SIM_METRICS: readonly Equivalent[] = [];
