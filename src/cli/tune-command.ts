/**
 * `fdkit tune --trace FILE`: sweeps the settings of every detector family over a trace, prints a short
 * table of the best setting of each family and the recommendation on stdout, and writes `report.html`,
 * `report.json` and `chart.svg` (the trade-off chart alone, for a README) into `--out`. Progress goes to
 * stderr, at most once a second.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { InvalidOptionError } from '../errors.js';
import { stopwatch } from '../runtime/system.js';
import { prepareTrace, replayTrace } from '../trace/replay.js';
import { createDetector, DETECTOR_FAMILIES, describeParameters } from '../tune/detector-config.js';
import { type DetectionStat, type TuneResult, tuneDetectors } from '../tune/tune.js';
import { commandFlags, numberFlag, stringFlag, UsageError } from './args.js';
import { type CommandIo, readTraceFile } from './trace-command.js';
import { FAMILY_STYLES } from './tune/families.js';
import { formatDuration, formatProbability, formatRate, usageOf } from './tune/format.js';
import { tuneReportHtml } from './tune/report-html.js';
import { formatReportJson, tuneReportJson } from './tune/report-json.js';
import { timelineChart } from './tune/timeline-chart.js';
import { STAT_WORDS, tradeoffChart } from './tune/tradeoff-chart.js';

const STATS: readonly DetectionStat[] = ['max', 'p99', 'mean'];
const PROGRESS_EVERY_MS = 1000;

/** Runs `fdkit tune`; returns the exit status (usage mistakes throw a `UsageError`). */
export function runTuneCommand(argv: readonly string[], io: CommandIo, version: string): number {
  const flags = commandFlags('fdkit tune', argv, {
    trace: { kind: 'string' },
    'target-detection': { kind: 'number', min: 0.001 },
    'max-mistakes-per-hour': { kind: 'number', min: 0 },
    'detection-stat': { kind: 'string' },
    out: { kind: 'string' },
  });
  const file = stringFlag(flags, 'trace');
  if (file === undefined) throw new UsageError('fdkit tune: --trace FILE is required');
  const stat = stringFlag(flags, 'detection-stat') ?? 'max';
  if (!(STATS as readonly string[]).includes(stat)) {
    throw new UsageError(`fdkit tune: --detection-stat takes ${STATS.join(', ')}, got '${stat}'`);
  }
  const outDir = stringFlag(flags, 'out') ?? 'fdkit-tune';
  const trace = readTraceFile('tune', file, io);
  if (trace === undefined) return 1;
  const heartbeats = prepareTrace(trace).arrivalMs.length;
  if (heartbeats < 2) {
    io.stderr(
      `fdkit tune: ${file} has ${heartbeats} heartbeat${heartbeats === 1 ? '' : 's'}; tuning needs at least two\n`,
    );
    return 1;
  }

  const elapsed = stopwatch();
  let lastProgressMs = 0;
  io.stderr(`fdkit tune: replaying ${file} (${heartbeats} heartbeats) through every setting\n`);
  let result: TuneResult;
  try {
    result = tuneDetectors(trace, {
      detectionStat: stat as DetectionStat,
      ...(flags.has('target-detection')
        ? { targetDetectionMs: numberFlag(flags, 'target-detection', 0) }
        : {}),
      ...(flags.has('max-mistakes-per-hour')
        ? { maxMistakesPerHour: numberFlag(flags, 'max-mistakes-per-hour', 0) }
        : {}),
      onProgress: ({ done, total, family }) => {
        const now = elapsed();
        if (now - lastProgressMs < PROGRESS_EVERY_MS) return;
        lastProgressMs = now;
        io.stderr(`fdkit tune: ${done}/${total} settings (${family}), ${(now / 1000).toFixed(1)} s\n`);
      },
    });
  } catch (error) {
    if (error instanceof InvalidOptionError) throw new UsageError(`fdkit tune: ${error.message}`);
    throw error;
  }
  const wallMs = elapsed();
  io.stderr(`fdkit tune: ${result.candidates.length} settings in ${(wallMs / 1000).toFixed(1)} s\n`);

  const name = basename(file);
  const rec = result.recommendation;
  const recommendedReplay =
    rec === null ? undefined : replayTrace(trace, createDetector(rec.config, trace.header.intervalMs));
  const tradeoffSvg = tradeoffChart(result, name);
  const timelineSvg = timelineChart(trace, prepareTrace(trace).arrivalMs, recommendedReplay, name);
  mkdirSync(outDir, { recursive: true });
  const files = {
    html: join(outDir, 'report.html'),
    json: join(outDir, 'report.json'),
    svg: join(outDir, 'chart.svg'),
  };
  writeFileSync(files.svg, `<?xml version="1.0" encoding="UTF-8"?>\n${tradeoffSvg}`);
  writeFileSync(files.json, formatReportJson(tuneReportJson(result, trace, file, version, wallMs)));
  writeFileSync(
    files.html,
    tuneReportHtml({
      result,
      trace,
      traceName: name,
      tradeoffSvg,
      timelineSvg,
      recommendedReplay,
      version,
      wallMs,
    }),
  );
  io.stdout(summaryTable(result, name));
  io.stdout(`wrote ${files.html}, ${files.json} and ${files.svg}\n`);
  return 0;
}

function pad(cells: readonly string[], widths: readonly number[]): string {
  return cells
    .map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
    .join('  ')
    .trimEnd();
}

/** The table printed on stdout. */
function summaryTable(result: TuneResult, name: string): string {
  const s = result.trace;
  const crash = s.crashAtMs === null ? 'no crash' : `crash at ${formatDuration(s.crashAtMs)}`;
  const lines = [
    `fdkit tune: ${name}, ${s.source}, ${formatDuration(s.durationMs)} at ${formatDuration(s.intervalMs)}, ` +
      `${s.heartbeats} heartbeats, ${(s.lossRate * 100).toFixed(2)} % lost, ${crash}`,
    `T_D: ${STAT_WORDS[result.detectionStat]} over a crash right after each heartbeat; ` +
      `rule: ${result.rule}`,
    '',
  ];
  const header = ['family', 'best setting', `T_D`, 'mistakes/h', 'T_M mean', 'P_A'];
  const rows = DETECTOR_FAMILIES.map((family) => {
    const b = result.best[family];
    const label = FAMILY_STYLES[family].label;
    if (b === null) return [label, 'none meets the target', '-', '-', '-', '-'];
    return [
      label,
      describeParameters(b.config),
      formatDuration(b.detectionMs),
      formatRate(b.qos.mistakesPerHour),
      formatDuration(b.qos.mistakeDurationMs?.mean ?? null),
      formatProbability(b.qos.queryAccuracy),
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  lines.push(pad(header, widths), ...rows.map((r) => pad(r, widths)), '');
  const rec = result.recommendation;
  if (rec === null) {
    lines.push('recommended: none; no setting meets the target');
  } else {
    lines.push(
      `recommended: ${FAMILY_STYLES[rec.config.family].label}, ${describeParameters(rec.config)}: ` +
        `T_D ${formatDuration(rec.detectionMs)}, ${formatRate(rec.qos.mistakesPerHour)} mistakes/h, ` +
        `P_A ${formatProbability(rec.qos.queryAccuracy)}`,
      `  ${usageOf(rec.config, s.intervalMs)}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
