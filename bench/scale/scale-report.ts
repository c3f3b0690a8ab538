/**
 * The scale bench's result files: bench/results/scale.json (everything) and scale.md (the figures, the
 * derivation of the convergence bound, the verdict).
 */

import type { Fault } from '../soak/schedule.js';
import { markdownTable } from '../support/format.js';
import { toJson, writeResult } from '../support/report.js';
import type { ConvergenceBound, KillKnown } from './scale-checks.js';

/** Per-member cost over the idle window. */
export interface IdleCost {
  readonly members: number;
  readonly cpuPercent: { readonly median: number; readonly p90: number; readonly max: number };
  readonly rssMiB: { readonly median: number; readonly p90: number; readonly max: number };
  readonly load1: number;
}

/** The whole run's results, for the report. */
export interface ScaleRun {
  readonly large: number;
  readonly idleMs: number;
  readonly bound: ConvergenceBound;
  readonly formMs: {
    readonly startToConverged: number;
    readonly lastJoinToConverged: number;
    readonly startToLastJoin: number;
  };
  readonly smallFormMs: { readonly startToConverged: number; readonly lastJoinToConverged: number };
  readonly idle: readonly IdleCost[];
  readonly faults: readonly Fault[];
  readonly kills: readonly KillKnown[];
  readonly wrongDeaths: readonly { observer: string; member: string; atMs: number; why: string }[];
  readonly failures: readonly string[];
  readonly machine: Record<string, string | number>;
  readonly load: readonly number[];
}

function s(ms: number): string {
  return (ms / 1000).toFixed(1);
}

/** scale.md. */
export function scaleMarkdown(run: ScaleRun): string {
  const b = run.bound;
  const idle = markdownTable(
    ['members', 'CPU % of a core, median', 'p90', 'max', 'RSS MiB, median', 'p90', 'max', 'load (1 min)'],
    run.idle.map((c) => [
      String(c.members),
      c.cpuPercent.median.toFixed(2),
      c.cpuPercent.p90.toFixed(2),
      c.cpuPercent.max.toFixed(2),
      c.rssMiB.median.toFixed(1),
      c.rssMiB.p90.toFixed(1),
      c.rssMiB.max.toFixed(1),
      c.load1.toFixed(2),
    ]),
  );
  const known = run.kills.map((k) => k.allKnowMs).filter((x): x is number => x !== null);
  const kills = markdownTable(
    ['killed', 'at (s)', 'known by all live members after (ms)'],
    run.kills.map((k) => [
      k.member,
      s(k.killedAtMs),
      k.allKnowMs === null ? `never by ${k.unaware.length}` : String(k.allKnowMs),
    ]),
  );
  const verdict =
    run.failures.length === 0
      ? '**Passed.**'
      : `**Failed:**\n\n${run.failures.map((f) => `- ${f}`).join('\n')}`;
  return [
    `# ${run.large} real members on one machine`,
    '',
    `Made by \`flock /tmp/fdkit-heavy.lock npm run bench:scale\` (bench/scale/main.ts): ${run.large} \`fdkit agent\``,
    `processes on loopback, \`lan\` profile, ${run.machine.cpuCount} cores (${run.machine.cpu}), Node ${run.machine.node}; load`,
    `average at the end ${run.load.map((l) => l.toFixed(2)).join(' ')}.`,
    '',
    verdict,
    '',
    '## Forming the cluster',
    '',
    `Every member joins the first. ${run.large} converged ${s(run.formMs.startToConverged)} s after the first process started:`,
    `${s(run.formMs.startToLastJoin)} s for the last process to start and join (spawning ${run.large} Node processes on`,
    `${run.machine.cpuCount} cores), then ${s(run.formMs.lastJoinToConverged)} s until every member held every other alive.`,
    `(${run.idle[0]?.members ?? '?'} members: ${s(run.smallFormMs.startToConverged)} s in all, ${s(run.smallFormMs.lastJoinToConverged)} s after the last join.)`,
    '',
    `The bound, after the last join, is ${s(b.boundMs)} s (bench/scale/scale-checks.ts, from src/swim/timing.ts and the`,
    "`lan` parameters). A joiner's join is a push-pull with the seed: it learns everyone who joined before",
    'it, and the seed learns it. What it lacks is the members that joined after it, and those reach it by',
    `gossip. One update reaches all ${run.large} members in ${s(b.disseminationMs)} s (timing.ts: ⌈log_${b.gossipNodes + 1} n + ln n / ${b.gossipNodes}⌉ + 2 rounds`,
    `of ${b.gossipIntervalMs} ms). Here ${run.large - 1} alive statements of about 30 bytes travel at once: ${b.packetsPerSweep} packets of 1400`,
    `bytes carry them all, ${b.roundsPerSweep} gossip round(s) at ${b.gossipNodes} packets a round, and each statement is sent up to`,
    `retransmitLimit = 4 × ⌈log₁₀(n + 1)⌉ = ${b.retransmitLimit} times, so a member's queue of them drains within ${b.roundsPerSweep} × ${b.retransmitLimit} rounds: the`,
    `bound is the dissemination plus that drain, ${s(b.disseminationMs)} + ${s(b.boundMs - b.disseminationMs)} s. The push-pull (every`,
    `${s(b.pushPullIntervalMs)} s at this size) repairs what gossip misses but is not counted on.`,
    '',
    '## Cost per member at idle',
    '',
    `On-CPU time of every thread (/proc/PID/task/*/schedstat, bench/peers/proc.ts) and RSS, over ${s(run.idleMs)} s of`,
    'idling after convergence and 10 s of settling, the same tool at both sizes in the same run:',
    '',
    idle,
    '',
    '## Kills and pauses',
    '',
    'Ten times: one member paused (SIGSTOP) for 3 s, continued, and 1 s later another one killed (SIGKILL);',
    `4 s apart. ${run.wrongDeaths.length} deaths were declared of members not killed (paused ones included).`,
    `Every kill known by all live members within ${known.length === 0 ? '-' : `${Math.max(...known)} ms`} (the issue asks 2 s):`,
    '',
    kills,
    '',
  ].join('\n');
}

/** Writes scale.json and scale.md; returns the markdown's path. */
export function writeScaleResults(run: ScaleRun): string {
  writeResult('scale.json', `${toJson(run)}\n`);
  return writeResult('scale.md', scaleMarkdown(run));
}
