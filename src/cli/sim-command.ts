/**
 * `fdkit sim`: one seeded simulation from the command line, its report as JSON (`--json`) or as a short
 * table, progress on stderr for runs that take more than a couple of seconds.
 */
import { stopwatch } from '../runtime/system.js';
import type { DowningReport, SimulationReport } from '../sim/report.js';
import { Simulation } from '../sim/simulation.js';
import { isProfileName, PROFILE_LIST, type ProfileName } from '../swim/profiles.js';
import { commandFlags, numberFlag, stringFlag, UsageError } from './args.js';
import { DOWNING_FLAGS, downingFromFlags } from './downing-flags.js';
import { faultPlanFromFlags, SIM_FAULT_FLAGS } from './sim-fault-flags.js';

/** How often progress is printed, in wall-clock milliseconds. */
const PROGRESS_EVERY_MS = 2000;

/** Runs `fdkit sim` with its arguments; `out` and `err` receive stdout and stderr text. */
export function runSimCommand(
  argv: readonly string[],
  out: (text: string) => void,
  err: (text: string) => void,
): void {
  const flags = commandFlags('fdkit sim', argv, {
    nodes: { kind: 'integer', min: 2, max: 20_000 },
    seconds: { kind: 'number', min: 1, max: 86_400 },
    seed: { kind: 'integer', min: 0 },
    profile: { kind: 'string' },
    loss: { kind: 'number', min: 0, max: 1 },
    ...SIM_FAULT_FLAGS,
    leader: { kind: 'boolean' },
    'stable-for-ms': { kind: 'number', min: 0, max: 86_400_000 },
    ...DOWNING_FLAGS,
    json: { kind: 'boolean' },
  });
  const nodes = numberFlag(flags, 'nodes', 100);
  const seconds = numberFlag(flags, 'seconds', 60);
  const seed = numberFlag(flags, 'seed', 1);
  const profile = stringFlag(flags, 'profile') ?? 'lan';
  if (!isProfileName(profile))
    throw new UsageError(`fdkit sim: --profile takes ${PROFILE_LIST}, got '${profile}'`);
  const faults = faultPlanFromFlags(flags, nodes, seconds, seed);
  const stableForMs = flags.get('stable-for-ms');
  if (stableForMs !== undefined && flags.get('leader') !== true) {
    throw new UsageError('fdkit sim: --stable-for-ms tunes the leader hints: it needs --leader');
  }
  // The simulator models lease-majority's lease service itself.
  const downing = downingFromFlags('fdkit sim', flags, ['quorum-size', 'stable-after-ms'], undefined);
  const wall = stopwatch();
  let lastProgress = 0;
  const simulation = new Simulation({
    nodes,
    seconds,
    seed,
    profile: profile as ProfileName,
    network: { loss: numberFlag(flags, 'loss', 0) },
    faults,
    ...(flags.get('leader') === true
      ? { leader: stableForMs === undefined ? true : { stableForMs: numberFlag(flags, 'stable-for-ms', 0) } }
      : {}),
    ...(downing === undefined ? {} : { downing: downing.strategy }),
    ...(downing?.stableAfterMs === undefined ? {} : { downingStableAfterMs: downing.stableAfterMs }),
    wallClock: wall,
    rssBytes: () => process.memoryUsage().rss,
    onProgress: (virtualMs, totalMs) => {
      const now = wall();
      if (now - lastProgress < PROGRESS_EVERY_MS) return;
      lastProgress = now;
      err(
        `fdkit sim: ${(virtualMs / 1000).toFixed(0)}/${totalMs / 1000} virtual s, ${(now / 1000).toFixed(1)} s wall\n`,
      );
    },
  });
  const report = simulation.run();
  out(flags.get('json') === true ? `${JSON.stringify(report, null, 2)}\n` : table(report));
}

function ms(q: { p50: number; p99: number; max: number } | null): string {
  return q === null ? '-' : `p50 ${q.p50.toFixed(0)}  p99 ${q.p99.toFixed(0)}  max ${q.max.toFixed(0)}`;
}

function downingLine(d: DowningReport): string {
  const quorum = d.quorumSize === undefined ? '' : ` ${d.quorumSize}`;
  return `  downing ${d.strategy}${quorum} (stable after ${d.stableAfterMs} ms): ${d.downs} downs, ${d.downedSelf} downed themselves, ${d.downedHealthy} healthy downed; split brain ${d.splitBrainMs} ms, none up ${d.unavailableMs} ms; decision (ms) ${ms(d.decisionMs)}`;
}

function table(r: SimulationReport): string {
  const lines = [
    `fdkit sim: ${r.nodes} members, ${r.seconds} s, seed ${r.seed}, profile ${r.profile}`,
    `  crashed ${r.detection.crashed}, missed ${r.detection.missed}`,
    `  first suspicion (ms)   ${ms(r.detection.firstSuspectMs)}`,
    `  first death (ms)       ${ms(r.detection.firstDeadMs)}`,
    `  all know dead (ms)     ${ms(r.detection.allKnowDeadMs)}`,
    `  false suspicions ${r.falsePositives.suspicions}, false deaths ${r.falsePositives.deaths}, resurrections ${r.falsePositives.resurrections}`,
    `  load: ${r.load.msgsPerNodePerSec} msgs and ${r.load.bytesPerNodePerSec} bytes per member per second; ${r.drops.socketBuffer} datagrams dropped at full socket buffers`,
    `  join known by all after ${r.convergence.joinAllKnowMs?.toFixed(0) ?? '-'} ms; views agree ${r.convergence.agreeAfterMs ?? '-'} ms after the last fault`,
    ...(r.leader === undefined
      ? []
      : [
          `  leader hints (stable for ${r.leader.stableForMs} ms): ${r.leader.changes} changes; all name one live leader ${r.leader.agreeAfterMs ?? '-'} ms after the last fault; ${r.leader.disagreeingAtEnd} disagree at the end (leader ${r.leader.leaderAtEnd ?? '-'})`,
        ]),
    ...(r.downing === undefined ? [] : [downingLine(r.downing)]),
    `  ${r.wallMs} ms wall, ${r.eventsPerSec} events/s, peak RSS ${r.peakRssMb} MiB`,
  ];
  return `${lines.join('\n')}\n`;
}
