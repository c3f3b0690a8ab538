/**
 * Equivalent mutants of the wire code added for name conflicts, join refusals, application state and the
 * encryption drop reasons (one group of src/wire/'s files, so that each can be worked on apart): see
 * ../equivalents.ts.
 */
import type { Equivalent } from '../equivalent.js';

export const WIRE_SESSION15: readonly Equivalent[] = [];
