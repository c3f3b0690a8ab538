/**
 * The result files of the link-down bench: `bench/results/linkdown.json` (every run, the summaries and
 * the ratios) and `linkdown.md` (the tables), and the plain table for stdout.
 */
import { formatSpread, formatTable, markdownTable, plainDigits } from '../support/format.js';
import { roundDeep } from '../support/stats.js';
import type { LinkDownRatio, LinkDownRun, LinkDownSummary } from './analysis.js';

/** What the report says about how and where it was made. */
export interface ReportHead {
  readonly command: string;
  readonly date: string;
  readonly commit: string;
  readonly changedSrcFiles: number;
  readonly machine: Readonly<Record<string, string | number>>;
  readonly versions: Readonly<Record<string, string>>;
  readonly settings: Readonly<Record<string, unknown>>;
  readonly totalS: number;
}

const seconds = (ms: number): string => (ms / 1000).toFixed(2);

function summaryCells(s: LinkDownSummary): string[] {
  return [
    String(s.members),
    s.contender,
    formatSpread(s.firstSuspicionMs, seconds),
    formatSpread(s.firstDeathMs, seconds),
    formatSpread(s.allKnowMs, seconds) + (s.unfinished > 0 ? ` (${s.unfinished} unfinished)` : ''),
    String(s.runs),
    String(s.falseSuspicions),
    String(s.falseDeaths),
  ];
}

const SUMMARY_HEADER = [
  'members',
  'system',
  'first suspicion, s',
  'first death, s',
  'all know, s',
  'runs',
  'false suspicions',
  'false deaths',
];

function ratioCells(r: LinkDownRatio): string[] {
  const x = (v: number | null): string => (v === null ? '–' : `${plainDigits(2)(v)} ×`);
  return [
    String(r.members),
    `${r.contender} / ${r.baseline}`,
    x(r.allKnow),
    x(r.firstDeath),
    x(r.firstSuspicion),
  ];
}

const RATIO_HEADER = ['members', 'ratio of medians', 'all know', 'first death', 'first suspicion'];

/** The tables for stdout. */
export function plainTables(summaries: readonly LinkDownSummary[], ratios: readonly LinkDownRatio[]): string {
  return `${formatTable(SUMMARY_HEADER, summaries.map(summaryCells), new Set([1]))}\n\n${formatTable(
    RATIO_HEADER,
    ratios.map(ratioCells),
    new Set([1]),
  )}\n`;
}

/** `linkdown.md`. */
export function markdown(
  head: ReportHead,
  summaries: readonly LinkDownSummary[],
  ratios: readonly LinkDownRatio[],
): string {
  const versions = Object.entries(head.versions)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  return `# A host's link taken down: fdkit and memberlist side by side

Made by \`${head.command}\` (bench/linkdown/main.ts) on ${head.date}, commit ${head.commit}${
    head.changedSrcFiles > 0 ? ` with ${head.changedSrcFiles} files of src/ changed` : ''
  }, in ${Math.round(head.totalS)} s; ${head.machine.cpu} × ${head.machine.cpuCount}, Node.js ${head.machine.node}; ${versions}.

Each system runs as one process per network namespace, all namespaces on one bridge
(examples/support/netns.ts): \`fdkit agent --profile P\`, and the memberlist agent of bench/peers at
memberlist's \`DefaultLANConfig()\`. The systems run at the same time, in namespaces of their own, on fresh
clusters for every repetition; once every member holds every other alive, and a warm-up (${head.settings.warmupS} s) later, the last
member of each (never the seed) has its link taken down inside its namespace at the same moment
(\`ip link set eth0 down\`): no connection closed or refused, no packet, as when a host's power or NIC
fails. Times are from just before the \`ip\` command to when the bench read the line: the first suspicion
(or death) of it by any survivor, the first death, and when the last survivor held it dead. False
suspicions and deaths are (survivor, survivor) pairs over the watched windows, summed over the runs.
Medians, with the range, over the runs.

${markdownTable(SUMMARY_HEADER, summaries.map(summaryCells))}

${markdownTable(RATIO_HEADER, ratios.map(ratioCells))}
`;
}

/** `linkdown.json`'s content. */
export function jsonReport(
  head: ReportHead,
  summaries: readonly LinkDownSummary[],
  ratios: readonly LinkDownRatio[],
  runs: readonly LinkDownRun[],
): unknown {
  return roundDeep({ ...head, summaries, ratios, runs });
}
