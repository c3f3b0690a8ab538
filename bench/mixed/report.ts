/**
 * The result files of the mixed-cluster bench: `bench/results/mixed.json` (every run and the summaries),
 * `mixed.md` (the table), the plain table for stdout and the chart `docs/mixed-detection.svg`.
 */

import { formatSpread, formatTable, markdownTable } from '../support/format.js';
import { roundDeep } from '../support/stats.js';
import { barChart } from '../support/svg-chart.js';
import type { Implementation, MixedRun, PathSummary } from './analysis.js';
import { CASES } from './cases.js';

/** What the report says about how and where it was made. */
export interface ReportHead {
  readonly command: string;
  readonly date: string;
  readonly commit: string;
  readonly changedSrcFiles: number;
  readonly machine: Readonly<Record<string, string | number>>;
  readonly versions: Readonly<Record<string, string>>;
  readonly settings: {
    readonly reps: number;
    readonly profile: string;
    readonly warmupS: number;
    readonly waitS: number;
  };
  readonly totalS: number;
}

const NAMES: Readonly<Record<Implementation, string>> = { go: 'Go', fdkit: 'fdkit' };
const seconds = (ms: number): string => (ms / 1000).toFixed(2);

function caseLabel(id: string): string {
  return CASES.find((c) => c.id === id)?.label ?? id;
}

/** `Go seen by fdkit, mixed`: the chart's category of a path. */
export function pathLabel(s: PathSummary): string {
  const where =
    s.case === 'mixed-3fdkit-victim' ? 'mixed 3+3' : s.case.startsWith('mixed') ? 'mixed 3+2' : 'pure';
  return `${NAMES[s.victim]} seen by ${NAMES[s.observers]}, ${where}`;
}

const HEADER = [
  'cluster',
  'killed',
  'seen by',
  'runs',
  'each observer, s',
  'last of them, s',
  'missed',
  'false deaths',
  "fdkit's causes",
];

function cells(s: PathSummary): string[] {
  return [
    caseLabel(s.case),
    NAMES[s.victim],
    `${NAMES[s.observers]} (n=${s.deadMs.n + s.missed})`,
    String(s.runs),
    formatSpread(s.deadMs, seconds),
    formatSpread(s.lastMs, seconds),
    String(s.missed),
    String(s.falseDeaths),
    Object.entries(s.causes)
      .sort((a, b) => b[1] - a[1])
      .map(([cause, n]) => `${cause} ${n}`)
      .join(', ') || '–',
  ];
}

/** The table for stdout. */
export function plainTable(summaries: readonly PathSummary[]): string {
  return `${formatTable(HEADER, summaries.map(cells), new Set([0, 1, 2]))}\n`;
}

/** `mixed.md`. */
export function markdown(head: ReportHead, summaries: readonly PathSummary[]): string {
  const versions = Object.entries(head.versions)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  const dirty = head.changedSrcFiles > 0 ? ` with ${head.changedSrcFiles} files of src/ changed` : '';
  return `# Detection times in mixed clusters: Go memberlist and fdkit side by side

Made by \`${head.command}\` (bench/mixed/main.ts) on ${head.date}, commit ${head.commit}${dirty}, in ${Math.round(
    head.totalS,
  )} s; ${head.machine.cpu} × ${head.machine.cpuCount}, Node.js ${head.machine.node}; ${versions}.

Five-member clusters (six for the death watch's case) on 127.0.0.1: Go members are memberlist 0.2.2 at \`DefaultLANConfig()\`
(test/wire/memberlist/go-agent), fdkit members \`fdkit agent --wire memberlist --profile ${head.settings.profile}\`.
The four clusters of a repetition run at the same time, fresh every repetition: once every member holds
every other alive, and a warm-up (${head.settings.warmupS} s) later, each cluster's victim (never its seed)
gets SIGKILL. A time runs from just before the signal to when the bench read the survivor's line saying
the victim is dead (the Go agent's NotifyLeave with state dead, \`fdkit agent\`'s \`dead\` line). "Each
observer" pools every survivor of that kind over the ${head.settings.reps} repetitions; "last of them" is,
per repetition, the slowest survivor of that kind. Medians, with the range. Missed: survivors that did not
hold the victim dead within ${head.settings.waitS} s. False deaths: (survivor, survivor) pairs held dead or
left during the watch, over the cluster's runs.

On loopback a killed process's ports refuse connections at once. fdkit takes a refusal as evidence: a
member's death-watch connection (to fdkit members only) or probe connection that is refused raises a
suspicion, and refusals seen by two members cut its timeout to a probe timeout (src/swim/suspicions.ts;
the verdict is then reported as \`suspicion-timeout\`). memberlist waits out Lifeguard's suspicion
timeout, shortened by confirmations, and gossips no refusal, but accepts a dead message at once, whoever
sends it (\`dead-gossip\` on the fdkit side). So in a mixed cluster the two fdkit members can convict a
killed Go member for everyone, while a killed fdkit member has a single fdkit witness and goes at
memberlist's pace. The last column counts the causes fdkit's observers gave.

${markdownTable(HEADER, summaries.map(cells))}

![detection times](../../docs/mixed-detection.svg)
`;
}

/** `docs/mixed-detection.svg`: per path, the fastest, median and slowest observer time. */
export function chart(head: ReportHead, summaries: readonly PathSummary[]): string {
  const values = (pick: (s: PathSummary) => number | null): (number | null)[] =>
    summaries.map((s) => {
      const v = pick(s);
      return v === null ? null : v / 1000;
    });
  return barChart({
    title: 'Time until a survivor holds a SIGKILLed member dead (Go + fdkit members)',
    yLabel: 'seconds after SIGKILL',
    categories: summaries.map(pathLabel),
    series: [
      { name: 'fastest', values: values((s) => s.deadMs.min) },
      { name: 'median', values: values((s) => s.deadMs.median) },
      { name: 'slowest', values: values((s) => s.deadMs.max) },
    ],
    width: 860,
    height: 440,
    formatValue: (v) => v.toFixed(1),
    note: `every survivor of each kind, ${head.settings.reps} repetitions; Go: memberlist 0.2.2 DefaultLANConfig, fdkit: --wire memberlist --profile ${head.settings.profile}; loopback`,
  });
}

/** `mixed.json`'s content. */
export function jsonReport(
  head: ReportHead,
  summaries: readonly PathSummary[],
  runs: readonly MixedRun[],
): unknown {
  return roundDeep({ ...head, summaries, runs });
}
