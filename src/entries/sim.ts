/**
 * `fdkit/sim`: the deterministic simulator. A {@link Simulation} runs a whole SWIM cluster of unchanged
 * cores on one virtual clock over a modelled network, injects crashes, kills, pauses, partitions and slow
 * CPUs, and reports detection times, false positives, load and convergence; the same seed gives the same
 * report.
 *
 * @module fdkit/sim
 */
export { InvalidArgumentError, type InvalidOptionCode, InvalidOptionError } from '../errors.js';
export {
  type CrashFault,
  type FaultPlan,
  type FaultRequest,
  type ImpostorFault,
  type PartitionFault,
  type PauseFault,
  planFaults,
  type SlowCpuFault,
} from '../sim/faults.js';
export type { LeaderConsensus } from '../sim/leader-consensus.js';
export { lanNetwork, type NetworkModel } from '../sim/network.js';
export type { SimDowningStrategy, SimLeaseMajorityStrategy } from '../sim/options.js';
export type { ProcessState, SimProcess } from '../sim/process.js';
export type { DowningReport, LeaderReport, Quantiles, SimulationReport } from '../sim/report.js';
export { type SimMemberOptions, Simulation, type SimulationOptions } from '../sim/simulation.js';
