/**
 * The undetected mutants that no test can kill, each with the reason: the mutant behaves as the
 * original on every input the code can receive. A mutant is matched by its file, its Stryker mutator,
 * the source text it replaced (whitespace aside) and, where that text occurs more than once, its
 * replacement or line. `bench/mutation/report.ts --check` fails on a survivor with no line here and on
 * a line here that matches no survivor, so the list stays true as tests and code change. Each folder
 * keeps its own list, in equivalents/<folder>.ts, and the large ones one per group of files
 * (equivalents/swim-probe.ts), so that the groups can be worked on at once.
 */
import type { Equivalent } from './equivalent.js';

import { DETECTOR } from './equivalents/detector.js';
import { FENCING_CAS } from './equivalents/fencing-cas.js';
import { FENCING_LEASE } from './equivalents/fencing-lease.js';
import { FENCING_SQL } from './equivalents/fencing-sql.js';
import { HEARTBEAT } from './equivalents/heartbeat.js';
import { SIM_METRICS } from './equivalents/sim-metrics.js';
import { SWIM_PROBE } from './equivalents/swim-probe.js';
import { SWIM_SESSION15 } from './equivalents/swim-session15.js';
import { SWIM_SESSION15B } from './equivalents/swim-session15b.js';
import { SWIM_SUSPICION } from './equivalents/swim-suspicion.js';
import { SWIM_SYNC } from './equivalents/swim-sync.js';
import { SWIM_VIEW } from './equivalents/swim-view.js';
import { WIRE_DECODE } from './equivalents/wire-decode.js';
import { WIRE_SESSION15 } from './equivalents/wire-session15.js';
import { WIRE_VALIDATE } from './equivalents/wire-validate.js';

/** Every folder's list. */
export const EQUIVALENTS: readonly Equivalent[] = [
  ...DETECTOR,
  ...SIM_METRICS,
  ...HEARTBEAT,
  ...WIRE_VALIDATE,
  ...WIRE_DECODE,
  ...WIRE_SESSION15,
  ...FENCING_SQL,
  ...FENCING_CAS,
  ...FENCING_LEASE,
  ...SWIM_SUSPICION,
  ...SWIM_PROBE,
  ...SWIM_SYNC,
  ...SWIM_VIEW,
  ...SWIM_SESSION15,
  ...SWIM_SESSION15B,
];
