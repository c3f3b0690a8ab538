/**
 * What the defaults search writes: the JSON's shape (with one line per scenario result, so that the
 * per-candidate, per-scenario data stays readable and small), the markdown report (the three
 * configurations, the finalists, a table per scenario), and the table of one scenario on its own.
 */
import { formatNumber, markdownTable } from '../support/format.js';
import { round } from '../support/stats.js';
import { type ArmSummary, NOISE_SE, rank, type ScenarioStats, type Violation } from './evaluate.js';
import type { Scenario, SearchProfile } from './scenarios.js';
import { type Arm, type ArmResult, type ProfilePlan, pickOf, type StageResult } from './search.js';
import { PARAMS, type Space, type Values } from './space.js';

/** The done-when bar of the issue: all-know time at most this multiple of memberlist's, n = 20 and 100. */
export const TARGET_RATIO = 0.6;

/** One profile's part of the output. */
export interface ProfileOutput {
  readonly profile: SearchProfile;
  readonly baseProfile: string;
  readonly plan: ProfilePlan;
  readonly space: Space;
  readonly scenarios: readonly Scenario[];
  /** The candidate the search picks ("fdkit new"), or null when none ran. */
  readonly chosen: string | null;
  readonly stages: readonly StageResult[];
}

export interface Output {
  readonly benchmark: string;
  readonly date: string;
  readonly mode: 'full' | 'quick';
  readonly command: string;
  readonly source: { readonly commit: string; readonly changedSrcFiles: number };
  readonly engine: { readonly hostSilence: boolean };
  readonly loadBound: number;
  readonly profiles: readonly ProfileOutput[];
  readonly durationMs: number;
}

/**
 * JSON as Biome lays it out down to `depth` levels of nesting, and every object or array deeper on one
 * line (a scenario result is one line).
 */
export function compactJson(value: unknown, depth: number, indent = ''): string {
  if (depth <= 0 || value === null || typeof value !== 'object') return JSON.stringify(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((v) => inner + compactJson(v, depth - 1, inner)).join(',\n')}\n${indent}]`;
  }
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return '{}';
  return `{\n${entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${compactJson(v, depth - 1, inner)}`).join(',\n')}\n${indent}}`;
}

/** The columns of every arm's `results` rows in the JSON: one row per scenario. */
export const RESULT_COLUMNS = [
  'scenario',
  'seeds',
  'hostCrashes',
  'missed',
  'allKnowMedianMs',
  'allKnowMaxMs',
  'healthyKnowMedianMs',
  'firstSuspectMedianMs',
  'firstDeadMedianMs',
  'killAllKnowMedianMs',
  'falseSuspicions',
  'slowSuspicions',
  'falseAccusations',
  'falseDeaths',
  'slowDeaths',
  'msgsPerNodePerSec',
  'bytesPerNodePerSec',
  'socketBufferDrops',
  'allKnowRatio',
  'loadRatio',
  'bytesRatio',
  'violations',
  'withinNoise',
  'allKnowMs',
  'falseSuspicionsBySeed',
  'falseDeathsBySeed',
  'slowDeathsBySeed',
] as const;

/** An arm as the JSON holds it: its results as rows of {@link RESULT_COLUMNS}. */
function armJson(a: ArmResult): Record<string, unknown> {
  const rows = a.stats.map((s, i) => {
    const c = a.comparisons[i]!;
    const cell: Record<(typeof RESULT_COLUMNS)[number], unknown> = {
      ...s,
      allKnowRatio: c.allKnowRatio,
      loadRatio: c.loadRatio,
      bytesRatio: c.bytesRatio,
      violations: c.violations,
      withinNoise: c.withinNoise,
    };
    return RESULT_COLUMNS.map((k) => cell[k]);
  });
  return { key: a.key, role: a.role, values: a.values, extras: a.extras, summary: a.summary, results: rows };
}

/** The JSON of the output: each arm's scenario results as rows under `resultColumns`, a row a line. */
export function outputJson(o: Output): string {
  const json = {
    ...o,
    resultColumns: RESULT_COLUMNS,
    profiles: o.profiles.map((p) => ({
      ...p,
      stages: p.stages.map((st) => ({ ...st, arms: st.arms.map(armJson) })),
    })),
  };
  // Output, profiles, a profile, its stages, a stage, its arms, an arm, its results: each row a line.
  return `${compactJson(json, 8)}\n`;
}

/**
 * Reads an output back from its JSON (`outputJson`), the scenario rows turned into stats and comparisons
 * again, so that the report and charts can be written anew without running the search.
 */
export function parseOutput(text: string): Output {
  const raw = JSON.parse(text) as Output & { resultColumns: readonly string[] };
  const columns = raw.resultColumns;
  const armOf = (a: Record<string, unknown>): ArmResult => {
    const rows = (a.results as unknown[][]).map((row) =>
      Object.fromEntries(columns.map((c, i) => [c, row[i]])),
    ) as Record<string, unknown>[];
    const stats = rows.map((r) => {
      const { allKnowRatio: _a, loadRatio: _l, bytesRatio: _b, violations: _v, withinNoise: _n, ...rest } = r;
      return { ...rest, wallMs: 0 } as unknown as ScenarioStats;
    });
    const comparisons = rows.map((r) => ({
      scenario: r.scenario as string,
      allKnowRatio: r.allKnowRatio as number | null,
      loadRatio: r.loadRatio as number | null,
      bytesRatio: r.bytesRatio as number | null,
      violations: r.violations as Violation[],
      withinNoise: (r.withinNoise ?? []) as Violation[],
    }));
    const { results: _r, ...arm } = a;
    return { ...(arm as unknown as Arm), stats, comparisons, summary: a.summary as ArmSummary };
  };
  const { resultColumns: _c, ...output } = raw;
  return {
    ...output,
    profiles: output.profiles.map((p) => {
      // Ranked again, so that a report written anew follows the ranking of the code that writes it.
      const stages = p.stages.map((st) => ({
        ...st,
        arms: rank((st.arms as unknown as Record<string, unknown>[]).map(armOf)),
      }));
      const final = stages.find((st) => st.name === 'final');
      const chosen = (final === undefined ? undefined : pickOf(final.arms))?.key ?? p.chosen;
      return { ...p, stages, chosen };
    }),
  };
}

/** `1 seed`, `2 seeds`. */
const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

const seconds = (ms: number | null): string => (ms === null ? 'never' : (ms / 1000).toFixed(1));

/** The values of a configuration, as `probeIntervalMs 1000, …`, adaptive as on/off. */
export function describeValues(v: Values): string {
  return PARAMS.map((p) => `${p} ${p === 'adaptive' ? (v[p] === 1 ? 'on' : 'off') : v[p]}`).join(', ');
}

/** Labels of the three arms of the per-scenario tables. */
export const ARM_LABELS = { memberlist: 'memberlist', 'fdkit-old': 'fdkit old', new: 'fdkit new' } as const;

/**
 * The table of one scenario: memberlist, fdkit old and fdkit new, one row each, with the new/memberlist
 * ratios in the last columns (on the rows of fdkit old and new).
 */
export function scenarioTable(
  rows: readonly {
    label: string;
    stats: ScenarioStats;
    violations?: readonly string[];
    withinNoise?: readonly string[];
  }[],
): string {
  const header = [
    'configuration',
    'all know a host crash: median / max (s)',
    'all but the starved know (s)',
    'first suspicion (s)',
    'false suspicions (of them, starved)',
    'false deaths (starved members’)',
    'msgs / member / s',
    'bytes / member / s',
    'all-know × memberlist',
    'msgs × memberlist',
    'breaks',
  ];
  const base = rows[0]!.stats;
  const ratio = (a: number | null, b: number | null): string =>
    a === null || b === null || b === 0 ? '–' : (a / b).toFixed(2);
  const breaks = (violations: readonly string[] = [], noise: readonly string[] = []): string => {
    const parts = [...violations, ...noise.map((v) => `(${v}, within noise)`)];
    return parts.length === 0 ? '–' : parts.join(', ');
  };
  const body = rows.map(({ label, stats: s, violations, withinNoise }, i) => [
    label,
    `${seconds(s.allKnowMedianMs)} / ${seconds(s.allKnowMaxMs)}${s.missed > 0 ? ` (${s.missed} missed)` : ''}`,
    seconds(s.healthyKnowMedianMs ?? null),
    seconds(s.firstSuspectMedianMs),
    `${s.falseSuspicions} (${s.slowSuspicions})`,
    `${s.falseDeaths} (${s.slowDeaths})`,
    formatNumber(s.msgsPerNodePerSec),
    formatNumber(round(s.bytesPerNodePerSec, 0)),
    i === 0 ? '1' : ratio(s.allKnowMedianMs, base.allKnowMedianMs),
    i === 0 ? '1' : ratio(s.msgsPerNodePerSec, base.msgsPerNodePerSec),
    breaks(violations, withinNoise),
  ]);
  return markdownTable(header, body);
}

function armLine(a: ArmResult): string[] {
  const s = a.summary;
  const kinds = [...new Set(s.violations.map((v) => v.violation))];
  return [
    a.role === 'candidate' ? `\`${a.key}\`` : a.key,
    s.feasible ? 'yes' : `no: ${s.violations.length}, ${s.hardViolations} hard (${kinds.join(', ')})`,
    formatNumber(s.gateGeomeanRatio),
    s.gateWorstRatio === null ? '–' : `${formatNumber(s.gateWorstRatio)} (${s.gateWorstScenario})`,
    formatNumber(s.suspicionsRatio),
    seconds(s.n100AllKnowMedianMs),
    String(s.n100FalseSuspicions),
  ];
}

function armTable(arms: readonly ArmResult[], sizeLabel: string): string {
  return markdownTable(
    [
      'configuration',
      'feasible (violations)',
      'all-know × memberlist, geometric mean (n = 20, 100)',
      'worst (scenario)',
      'false suspicions × memberlist, all scenarios',
      `all-know median, ${sizeLabel} (s)`,
      `false suspicions, ${sizeLabel}`,
    ],
    arms.map(armLine),
  );
}

function profileSection(p: ProfileOutput): string {
  const final = p.stages.find((s) => s.name === 'final');
  const out: string[] = [`## ${p.profile}`, ''];
  const screened = p.stages.filter((s) => s.name !== 'final');
  const screenedArms = screened.flatMap((s) => s.arms.filter((a) => a.role === 'candidate'));
  out.push(
    `Base profile \`${p.baseProfile}\`. ${screenedArms.length} candidates screened on ${screened[0]?.scenarios.length ?? 0} scenarios (${p.plan.sample} sampled, the rest one-step neighbours of the best in ${p.plan.refineRounds} rounds); ${(final?.arms.length ?? 2) - 2} finalists (the best ${p.plan.finalists}, and the best of each host-silence value) and the baselines on all ${final?.scenarios.length ?? 0} scenarios. Grid: ${PARAMS.map((k) => `${k} {${p.space[k].join(', ')}}`).join('; ')}.`,
    '',
  );
  if (final === undefined) return out.join('\n');
  const ml = final.arms.find((a) => a.role === 'memberlist')!;
  const old = final.arms.find((a) => a.role === 'fdkit-old')!;
  const chosen = final.arms.find((a) => a.key === p.chosen);
  out.push('| configuration | values |', '| --- | --- |');
  out.push(`| memberlist (its defaults; fdkit's engine, extras off) | ${describeValues(ml.values)} |`);
  out.push(`| fdkit old (the same, extras on) | ${describeValues(old.values)} |`);
  if (chosen !== undefined) out.push(`| fdkit new (\`${chosen.key}\`) | ${describeValues(chosen.values)} |`);
  out.push('');
  const sizes = new Set(p.scenarios.map((s) => s.nodes));
  const sizeLabel = sizes.has(100) ? 'n = 100' : `n = ${Math.max(...sizes)}`;
  out.push('### Finalists, every scenario', '', armTable(final.arms, sizeLabel), '');
  if (chosen !== undefined) {
    const gate = chosen.comparisons.filter((c) => p.scenarios.find((s) => s.key === c.scenario)?.gate);
    const over = gate.filter((c) => c.allKnowRatio === null || c.allKnowRatio > TARGET_RATIO);
    out.push(
      over.length === 0
        ? `fdkit new meets the issue's bar (all-know at most ${TARGET_RATIO}× memberlist's) in all ${gate.length} scenarios at n = 20 and 100.`
        : `fdkit new is above ${TARGET_RATIO}× memberlist's all-know time in ${over.length} of ${gate.length} scenarios at n = 20 and 100: ${over.map((c) => `${c.scenario} (${formatNumber(c.allKnowRatio)})`).join(', ')}.`,
      '',
    );
  }
  out.push(
    '### Screening, best 15',
    '',
    armTable(
      rank(screened.flatMap((s) => s.arms).filter((a) => a.role === 'candidate')).slice(0, 15),
      sizeLabel,
    ),
    '',
  );
  out.push('### Per scenario', '');
  for (const s of p.scenarios) {
    const i = final.scenarios.indexOf(s.key);
    if (i < 0) continue;
    const rows = [
      { label: ARM_LABELS.memberlist, stats: ml.stats[i]!, violations: ml.comparisons[i]!.violations },
      { label: ARM_LABELS['fdkit-old'], stats: old.stats[i]!, violations: old.comparisons[i]!.violations },
      ...(chosen === undefined
        ? []
        : [
            { label: ARM_LABELS.new, stats: chosen.stats[i]!, violations: chosen.comparisons[i]!.violations },
          ]),
    ];
    out.push(
      `#### ${s.label} (\`${s.key}\`, ${plural(ml.stats[i]!.seeds, 'seed')} of ${s.seconds} s)`,
      '',
      scenarioTable(rows),
      '',
    );
  }
  return out.join('\n');
}

/** The markdown report. */
export function markdown(o: Output): string {
  const out = [
    '# Defaults search in the simulator (issue 19)',
    '',
    `\`${o.command}\` (${o.mode} mode), ${o.date}, commit ${o.source.commit}${o.source.changedSrcFiles > 0 ? ` with ${o.source.changedSrcFiles} changed src files` : ''}; ${(o.durationMs / 60_000).toFixed(1)} min. Host silence (\`hostSilenceMs\`) in the engine: ${o.engine.hostSilence ? 'yes' : 'no (the search ran without that dimension)'}.`,
    'Virtual-time results: they depend only on the seeds, not on the machine.',
    '',
    'Every configuration runs on fdkit\'s engine. "memberlist" is memberlist\'s defaults with fdkit\'s toggleable extras off (freeze guard, death watch); fdkit\'s always-on departures (the buddy system on every path, the accuser\'s re-probe, the last word, the TCP fallback ping, the refused-connection check of a late probe) stay on, so it is memberlist as near as fdkit gets, not memberlist itself. "fdkit old" is the same configuration with the extras on (the shipped behaviour before this issue); "fdkit new" is the candidate the search picks.',
    '',
    `**Objective:** the median time until every live member holds a crashed host dead (host crashes only: no kernel evidence), as a ratio to memberlist's in the same scenario and seeds, geometric mean over the scenarios at n = 20 and 100. **Constraints, in every scenario** (\`compare\` in evaluate.ts): hard ones: no healthy, paused or cut-off member declared dead; at most ${o.loadBound}× memberlist's messages per member and second; no more missed crashes than memberlist. Counted ones, compared seed by seed on the same seeds: no more false suspicions than memberlist's (suspicions of any member whose process was up, starved ones included, counted once per member holding them), and no more deaths of CPU-starved members (memberlist and fdkit old declare them dead hundreds of times in those scenarios, so zero is out of reach for the baselines themselves). An excess of a count is a violation when the mean of the per-seed differences is more than ${NOISE_SE} standard errors above zero; below that it is listed as within noise (a configuration equal to memberlist's exceeds it in about half the scenarios by chance). **Ranking** (\`rank\` in evaluate.ts): feasible first, then fewer hard violations, then fewer violations at n = 20 and 100 (where the issue's bar applies, scenario by scenario), then no more false suspicions than memberlist's summed over every scenario (at n = 5 an excess beyond noise still comes by chance), then the geometric mean of the all-know ratios, then the worst ratio. "fdkit new" is the best finalist a profile can carry: one that needs the adaptive probe timeout (a node option) is not picked. In the CPU-starved scenarios the all-know time is set by the starved members' own views (the column "all but the starved know" leaves them out).`,
    '',
    ...o.profiles.map(profileSection),
  ];
  return `${out.join('\n')}\n`;
}

/** The seconds of a count of ms for progress lines: `2 m 05 s`. */
export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} m ${String(s % 60).padStart(2, '0')} s`;
}
