/**
 * `fdkit trace generate`: a synthetic heartbeat trace to a file; `fdkit trace replay`: one detector
 * setting over a trace, its QoS metrics as JSON. Library mistakes in the flags (a delay model out of
 * range) are usage errors here, with the library's message.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { InvalidOptionError, TraceFormatError } from '../errors.js';
import { qosMetrics } from '../qos/metrics.js';
import { Random } from '../runtime/random.js';
import type { DelayModel } from '../trace/delay.js';
import { generateTrace, randomPauses } from '../trace/generate.js';
import { burstyLoss, type LossModel } from '../trace/loss.js';
import { replayTrace } from '../trace/replay.js';
import { summarizeTrace } from '../trace/summary.js';
import type { Trace } from '../trace/trace.js';
import { formatTrace, parseTrace } from '../trace/trace-format.js';
import { createDetector } from '../tune/detector-config.js';
import { commandFlags, HelpRequested, numberFlag, stringFlag, UsageError } from './args.js';
import { parseDetectorSpec } from './detector-spec.js';
import { formatDuration } from './tune/format.js';

/** Where a command writes. */
export interface CommandIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

const DAY_S = 86_400;
const JITTERS = ['normal', 'lognormal', 'pareto'] as const;

/** Runs `fdkit trace ...`; returns the exit status (usage mistakes throw a `UsageError`). */
export function runTraceCommand(argv: readonly string[], io: CommandIo): number {
  const [sub, ...rest] = argv;
  if (sub === 'generate') return generate(rest, io);
  if (sub === 'replay') return replay(rest, io);
  if (sub === '--help' || sub === '-h') throw new HelpRequested('fdkit trace --help');
  throw new UsageError(
    `fdkit trace: expected 'generate' or 'replay', got ${sub === undefined ? 'nothing' : `'${sub}'`}`,
  );
}

/** Parses `A:B`, two numbers, for `--burst-loss` and `--gc-pauses`. */
function pair(command: string, flag: string, raw: string, shape: string): [number, number] {
  const match = /^(\d+(?:\.\d+)?):(\d+(?:\.\d+)?)$/.exec(raw);
  if (match === null) throw new UsageError(`fdkit ${command}: flag --${flag} takes ${shape}, got '${raw}'`);
  return [Number(match[1]), Number(match[2])];
}

/** Runs `make`, turning the library's option errors into usage errors of `command`. */
function asUsage<T>(command: string, make: () => T): T {
  try {
    return make();
  } catch (error) {
    if (error instanceof InvalidOptionError) throw new UsageError(`fdkit ${command}: ${error.message}`);
    throw error;
  }
}

function generate(argv: readonly string[], io: CommandIo): number {
  const command = 'trace generate';
  const flags = commandFlags(`fdkit ${command}`, argv, {
    out: { kind: 'string' },
    seconds: { kind: 'number', min: 0.001, max: 30 * DAY_S },
    seed: { kind: 'integer', min: 0 },
    'interval-ms': { kind: 'number', min: 1, max: 3_600_000 },
    jitter: { kind: 'string' },
    'delay-ms': { kind: 'number', min: 0, max: 3_600_000 },
    'jitter-ms': { kind: 'number', min: 0, max: 3_600_000 },
    loss: { kind: 'number', min: 0, max: 1 },
    'burst-loss': { kind: 'string' },
    'gc-pauses': { kind: 'string' },
    'crash-at-s': { kind: 'number', min: 0 },
  });
  const out = stringFlag(flags, 'out');
  if (out === undefined) throw new UsageError(`fdkit ${command}: --out FILE is required`);
  const seconds = numberFlag(flags, 'seconds', 3600);
  const seed = numberFlag(flags, 'seed', 1);
  const intervalMs = numberFlag(flags, 'interval-ms', 1000);
  const jitter = stringFlag(flags, 'jitter') ?? 'normal';
  if (!(JITTERS as readonly string[]).includes(jitter)) {
    throw new UsageError(`fdkit ${command}: --jitter takes ${JITTERS.join(', ')}, got '${jitter}'`);
  }
  const delay: DelayModel = {
    distribution: jitter as DelayModel['distribution'],
    meanMs: numberFlag(flags, 'delay-ms', 10),
    stdDeviationMs: numberFlag(flags, 'jitter-ms', 5),
  };
  const burst = stringFlag(flags, 'burst-loss');
  if (burst !== undefined && flags.has('loss')) {
    throw new UsageError(`fdkit ${command}: give --loss (independent) or --burst-loss (bursty), not both`);
  }
  let loss: LossModel = { model: 'none' };
  if (flags.has('loss')) loss = { model: 'independent', probability: numberFlag(flags, 'loss', 0) };
  if (burst !== undefined) {
    const [rate, length] = pair(
      command,
      'burst-loss',
      burst,
      'RATE:LENGTH, e.g. 0.01:3 (1 % lost, in bursts of 3)',
    );
    loss = asUsage(command, () => burstyLoss(rate, length));
  }
  const durationMs = seconds * 1000;
  const crashAtS = flags.has('crash-at-s') ? numberFlag(flags, 'crash-at-s', 0) : undefined;
  if (crashAtS !== undefined && crashAtS > seconds) {
    throw new UsageError(
      `fdkit ${command}: --crash-at-s must be at most --seconds (${seconds}), got ${crashAtS}`,
    );
  }
  const crashAtMs = crashAtS === undefined ? undefined : crashAtS * 1000;
  const pausesRaw = stringFlag(flags, 'gc-pauses');
  const [count, pauseMs] =
    pausesRaw === undefined ? [0, 0] : pair(command, 'gc-pauses', pausesRaw, 'COUNT:MS, e.g. 2:2500');
  if (!Number.isInteger(count))
    throw new UsageError(`fdkit ${command}: --gc-pauses COUNT must be an integer`);
  // The pauses' own stream, apart from the generator's: the same seed gives the same pauses whatever the
  // network models are.
  const pauseSeed = (new Random(seed).nextUint32() ^ 0x9e3779b9) >>> 0;
  const endMs = crashAtMs ?? durationMs;
  const pauses = asUsage(command, () =>
    randomPauses({
      seed: pauseSeed,
      count,
      durationMs: pauseMs,
      fromMs: Math.min(60_000, endMs * 0.05),
      toMs: Math.max(Math.min(60_000, endMs * 0.05), endMs - intervalMs),
    }),
  );
  if (pauses.length < count) {
    throw new UsageError(
      `fdkit ${command}: only ${pauses.length} of ${count} pauses of ${pauseMs} ms fit in the trace`,
    );
  }
  const trace = asUsage(command, () =>
    generateTrace({
      seed,
      durationMs,
      intervalMs,
      delay,
      loss,
      pauses,
      ...(crashAtMs === undefined ? {} : { crashAtMs }),
    }),
  );
  writeFileSync(out, formatTrace(trace));
  const s = summarizeTrace(trace);
  const crash = s.crashAtMs === null ? '' : `, crash at ${formatDuration(s.crashAtMs)}`;
  io.stdout(
    `wrote ${out}: ${s.heartbeats} heartbeats over ${formatDuration(s.durationMs)}, ${s.lost} lost ` +
      `(${(s.lossRate * 100).toFixed(2)} %), longest silence ${formatDuration(s.longestGap?.ms ?? null)}` +
      `${pauses.length > 0 ? `, ${pauses.length} pauses` : ''}${crash}\n`,
  );
  return 0;
}

/**
 * Reads a trace file; a missing file or a malformed trace is reported on stderr and yields undefined
 * (exit status 1: the command line was right, the file is not).
 */
export function readTraceFile(command: string, file: string, io: CommandIo): Trace | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    io.stderr(
      `fdkit ${command}: cannot read ${file}: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return undefined;
  }
  try {
    return parseTrace(text, { source: file });
  } catch (error) {
    if (!(error instanceof TraceFormatError)) throw error;
    io.stderr(`fdkit ${command}: ${error.message}\n`);
    return undefined;
  }
}

function replay(argv: readonly string[], io: CommandIo): number {
  const command = 'trace replay';
  const flags = commandFlags(`fdkit ${command}`, argv, {
    trace: { kind: 'string' },
    detector: { kind: 'string' },
  });
  const file = stringFlag(flags, 'trace');
  const spec = stringFlag(flags, 'detector');
  if (file === undefined || spec === undefined) {
    throw new UsageError(`fdkit ${command}: --trace FILE and --detector FAMILY[:key=value,...] are required`);
  }
  const config = parseDetectorSpec(command, spec);
  // The detector is checked before the file is read: a usage mistake wins over a missing file.
  asUsage(command, () => createDetector(config, 1000));
  const trace = readTraceFile(command, file, io);
  if (trace === undefined) return 1;
  const qos = qosMetrics(replayTrace(trace, createDetector(config, trace.header.intervalMs)));
  io.stdout(`${JSON.stringify({ trace: summarizeTrace(trace), detector: config, qos }, null, 2)}\n`);
  return 0;
}
