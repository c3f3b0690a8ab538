/**
 * Shared by the unit tests of SWIM and membership: the fixed seed and run count of their fast-check
 * properties (a failure replays as is), and the four member states.
 */
import { ALIVE, DEAD, LEFT, type StateCode, SUSPECT } from '../../src/membership/member-state.js';

export const SEED = 20_240_611;

export const RUNS = 300;

export const STATES: readonly StateCode[] = [ALIVE, SUSPECT, DEAD, LEFT];
