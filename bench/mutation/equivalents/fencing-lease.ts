/** Equivalent mutants of src/fencing/*.ts (the leases and tokens): see ../equivalents.ts. */
import type { Equivalent } from '../equivalent.js';

export const FENCING_LEASE: readonly Equivalent[] = [];
