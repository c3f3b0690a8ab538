/**
 * Reading and writing traces as JSON lines (the format is described in `trace.ts`). Reading validates
 * every line and reports the first problem as a {@link TraceFormatError} with its line number; a trace
 * built in code is checked by the same rules with {@link checkTrace}.
 */
import { TraceFormatError } from '../errors.js';
import {
  type JsonObject,
  TRACE_FORMAT,
  TRACE_SEQ_MAX,
  TRACE_VERSION,
  type Trace,
  type TraceArrival,
  type TraceHeader,
  type TraceRecording,
} from './trace.js';

/** Options of {@link parseTrace} and {@link checkTrace}. */
export interface TraceSourceOptions {
  /** Names the trace in error messages (a file name). Default `trace`. */
  readonly source?: string;
}

const HEADER_KEYS = [
  'format',
  'version',
  'source',
  'intervalMs',
  'durationMs',
  'crashAtMs',
  'generator',
  'recording',
];
const RECORDING_KEYS = ['peer', 'peerName', 'recorder', 'startedAtUnixMs'];
const ARRIVAL_KEYS = ['t', 'seq', 'sent', 'life'];

/** Tracks where in the trace a check is, for the messages. */
class Position {
  line = 0;
  constructor(readonly source: string) {}

  fail(message: string): never {
    throw new TraceFormatError(this.line, `${this.source}:${this.line}: ${message}`);
  }
}

function show(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkKeys(at: Position, what: string, value: Record<string, unknown>, known: string[]): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key))
      at.fail(`unknown field "${key}" in ${what}; known fields are ${known.join(', ')}`);
  }
}

function finite(at: Position, name: string, value: unknown, min: number, max = Number.MAX_VALUE): number {
  if (typeof value !== 'number' || !(value >= min && value <= max)) {
    const range = max === Number.MAX_VALUE ? `>= ${min}` : `in [${min}, ${max}]`;
    at.fail(`"${name}" must be a number ${range}, got ${show(value)}`);
  }
  return value;
}

function integer(at: Position, name: string, value: unknown, max: number): number {
  if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > max) {
    at.fail(`"${name}" must be an integer in [0, ${max}], got ${show(value)}`);
  }
  return value as number;
}

function text(at: Position, name: string, value: unknown): string {
  if (typeof value !== 'string' || value === '')
    at.fail(`"${name}" must be a non-empty string, got ${show(value)}`);
  return value;
}

function checkHeader(at: Position, value: unknown): TraceHeader {
  if (!isObject(value) || value.format !== TRACE_FORMAT) {
    at.fail(
      `the first line must be a trace header, {"format":"${TRACE_FORMAT}","version":${TRACE_VERSION},...}`,
    );
  }
  if (value.version !== TRACE_VERSION) {
    at.fail(`unsupported trace version ${show(value.version)}; this fdkit reads version ${TRACE_VERSION}`);
  }
  checkKeys(at, 'the header', value, HEADER_KEYS);
  if (value.source !== 'generated' && value.source !== 'recorded') {
    at.fail(`"source" must be "generated" or "recorded", got ${show(value.source)}`);
  }
  const intervalMs = finite(at, 'intervalMs', value.intervalMs, Number.MIN_VALUE);
  const durationMs = finite(at, 'durationMs', value.durationMs, 0);
  const header: { -readonly [K in keyof TraceHeader]: TraceHeader[K] } = {
    format: TRACE_FORMAT,
    version: TRACE_VERSION,
    source: value.source,
    intervalMs,
    durationMs,
  };
  if (value.crashAtMs !== undefined)
    header.crashAtMs = finite(at, 'crashAtMs', value.crashAtMs, 0, durationMs);
  if (value.generator !== undefined) {
    if (!isObject(value.generator)) at.fail(`"generator" must be an object, got ${show(value.generator)}`);
    header.generator = value.generator as JsonObject;
  }
  if (value.recording !== undefined) header.recording = checkRecording(at, value.recording);
  return header;
}

function checkRecording(at: Position, value: unknown): TraceRecording {
  if (!isObject(value)) at.fail(`"recording" must be an object, got ${show(value)}`);
  checkKeys(at, '"recording"', value, RECORDING_KEYS);
  return {
    peer: text(at, 'recording.peer', value.peer),
    ...(value.peerName === undefined ? {} : { peerName: text(at, 'recording.peerName', value.peerName) }),
    recorder: text(at, 'recording.recorder', value.recorder),
    startedAtUnixMs: finite(at, 'recording.startedAtUnixMs', value.startedAtUnixMs, 0),
  };
}

/** Checks arrivals one by one against the header and the arrival before. */
class ArrivalChecker {
  private lastT = 0;
  private lastLife = 0;

  constructor(
    private readonly at: Position,
    private readonly durationMs: number,
  ) {}

  check(value: unknown): TraceArrival {
    const at: Position = this.at;
    if (!isObject(value)) at.fail(`an arrival must be an object {"t":ms,"seq":n}, got ${show(value)}`);
    checkKeys(at, 'an arrival', value, ARRIVAL_KEYS);
    const t = finite(at, 't', value.t, 0, this.durationMs);
    if (t < this.lastT)
      at.fail(`arrivals must be in order of arrival: t ${t} is before the previous ${this.lastT}`);
    this.lastT = t;
    const seq = integer(at, 'seq', value.seq, TRACE_SEQ_MAX);
    if (value.sent === undefined && value.life === undefined) return { t, seq };
    const arrival: { -readonly [K in keyof TraceArrival]: TraceArrival[K] } = { t, seq };
    if (value.sent !== undefined) arrival.sent = finite(at, 'sent', value.sent, 0, t);
    if (value.life !== undefined) {
      const life = integer(at, 'life', value.life, Number.MAX_SAFE_INTEGER);
      if (life < this.lastLife) at.fail(`"life" never decreases: ${life} after ${this.lastLife}`);
      this.lastLife = life;
      arrival.life = life;
    }
    return arrival;
  }
}

/**
 * Parses a trace from its JSON-lines text.
 *
 * @example
 * ```ts
 * const trace = parseTrace(readFileSync('run.jsonl', 'utf8'), { source: 'run.jsonl' });
 * trace.arrivals.length; // heartbeats received
 * ```
 * @throws {@link TraceFormatError} for the first line that is not valid, naming it.
 */
export function parseTrace(text: string, options: TraceSourceOptions = {}): Trace {
  const at: Position = new Position(options.source ?? 'trace');
  const lines = text.split('\n');
  let header: TraceHeader | undefined;
  let checker: ArrivalChecker | undefined;
  const arrivals: TraceArrival[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    at.line = i + 1;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      at.fail(`not JSON (${error instanceof Error ? error.message : String(error)})`);
    }
    if (checker === undefined) {
      header = checkHeader(at, value);
      checker = new ArrivalChecker(at, header.durationMs);
    } else {
      arrivals.push(checker.check(value));
    }
  }
  if (header === undefined) {
    at.line = 0;
    at.fail('the trace is empty: it needs at least its header line');
  }
  return { header, arrivals };
}

/**
 * Checks a trace built in code by the rules of {@link parseTrace}; line numbers in the message are those
 * the trace would have as a file (the header is line 1, arrival i is line i + 2).
 *
 * @throws {@link TraceFormatError} for the first problem.
 */
export function checkTrace(trace: Trace, options: TraceSourceOptions = {}): void {
  const at: Position = new Position(options.source ?? 'trace');
  at.line = 1;
  const header = checkHeader(at, trace?.header);
  if (!Array.isArray(trace.arrivals)) at.fail('"arrivals" must be an array');
  const checker = new ArrivalChecker(at, header.durationMs);
  for (let i = 0; i < trace.arrivals.length; i++) {
    at.line = i + 2;
    checker.check(trace.arrivals[i]);
  }
}

/** Writes a trace as JSON lines, ending with a newline. */
export function formatTrace(trace: Trace): string {
  const out: string[] = [JSON.stringify(trace.header)];
  for (const a of trace.arrivals) {
    // Fixed key order, and only the optional fields that are there.
    const sent = a.sent === undefined ? '' : `,"sent":${a.sent}`;
    const life = a.life === undefined ? '' : `,"life":${a.life}`;
    out.push(`{"t":${a.t},"seq":${a.seq}${sent}${life}}`);
  }
  return `${out.join('\n')}\n`;
}
