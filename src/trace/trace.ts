/**
 * Heartbeat traces: when the heartbeats of one sender arrived at one receiver. A trace is what the
 * quality-of-service metrics of a detector (docs/tuning.md) are computed on and what `fdkit tune` sweeps
 * detector settings over; it comes from the synthetic generator (`generate.ts`) or from a recording
 * between real members (`recorder.ts`, `fdkit record`), and is stored as JSON lines (`trace-format.ts`).
 *
 * The file format, version 1: UTF-8 text, one JSON object per line.
 *
 * The first line is the header:
 * ```json
 * {"format":"fdkit-trace","version":1,"source":"generated","intervalMs":1000,"durationMs":3600000,
 *  "crashAtMs":3300000,"generator":{"seed":7,"delay":{"distribution":"normal","meanMs":20,"stdDeviationMs":10}}}
 * ```
 * - `format` is `"fdkit-trace"` and `version` is `1`;
 * - `source`: `"generated"` or `"recorded"`;
 * - `intervalMs` (> 0): the interval the sender sends heartbeats at;
 * - `durationMs` (>= 0): the length of the observation; arrivals lie in [0, durationMs];
 * - `crashAtMs` (optional, in [0, durationMs]): when the sender crashed, when known; heartbeats sent
 *   before it may still arrive after it;
 * - `generator` (optional): the generator's parameters, enough to generate the same trace again;
 * - `recording` (optional): who recorded whom and when (see {@link TraceRecording}).
 *
 * Every further line is one arrival, in order of arrival (`t` never decreases):
 * ```json
 * {"t":1021.394,"seq":1,"sent":1000}
 * ```
 * - `t` (>= 0): when the heartbeat arrived, in ms since the start of the trace (a monotonic clock);
 * - `seq`: the sender's sequence number of the heartbeat, an integer in [0, 2^32): gaps are losses, a
 *   number not above an earlier one is a duplicate or a reordered heartbeat;
 * - `sent` (optional, <= `t`): when it was sent, on the same time base; generated traces know it,
 *   recorded ones do not (the sender's clock is another machine's);
 * - `life` (optional, default 0): counts the sender's restarts seen during a recording; it never
 *   decreases, and the sequence numbers of a new life start again.
 *
 * Readers reject unknown fields, so that a misspelt one is not ignored in silence; a new field means a
 * new version. Blank lines are ignored.
 */

/** The value of the header's `format` field. */
export const TRACE_FORMAT = 'fdkit-trace';
/** The version of the format this module reads and writes. */
export const TRACE_VERSION = 1;
/** Sequence numbers are unsigned 32-bit integers, as on the wire. */
export const TRACE_SEQ_MAX = 4_294_967_295;

/** A JSON value, for the free-form parts of a header. */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | JsonObject;
/** A JSON object. */
export interface JsonObject {
  readonly [key: string]: JsonValue;
}

/** Where a recorded trace comes from. */
export interface TraceRecording {
  /** The address (`host:port`) the sender was monitored at. */
  readonly peer: string;
  /** The name the sender gave in its heartbeats, once heard from. */
  readonly peerName?: string;
  /** The recorder's own address. */
  readonly recorder: string;
  /** Wall time of the start of the recording (t = 0), in ms since the Unix epoch. */
  readonly startedAtUnixMs: number;
}

/** The first line of a trace. */
export interface TraceHeader {
  /** {@link TRACE_FORMAT}: says the file is an fdkit trace. */
  readonly format: typeof TRACE_FORMAT;
  /** {@link TRACE_VERSION}: the layout of the file; readers refuse other versions. */
  readonly version: typeof TRACE_VERSION;
  /** Whether the trace was generated (`generator` says how) or recorded (`recording` says where). */
  readonly source: 'generated' | 'recorded';
  /** The sender's heartbeat interval, in ms. */
  readonly intervalMs: number;
  /** Length of the observation, in ms from t = 0. */
  readonly durationMs: number;
  /** When the sender crashed, when known. */
  readonly crashAtMs?: number;
  /** The generator's parameters (generated traces). */
  readonly generator?: JsonObject;
  /** Who recorded whom (recorded traces). */
  readonly recording?: TraceRecording;
}

/** One heartbeat arrival. */
export interface TraceArrival {
  /** Arrival time, in ms since the start of the trace. */
  readonly t: number;
  /** The sender's sequence number. */
  readonly seq: number;
  /** Send time on the same time base, when known. */
  readonly sent?: number;
  /** The sender's life (restarts seen), 0 when absent. */
  readonly life?: number;
}

/** A header and the arrivals, in order of arrival. */
export interface Trace {
  /** What the trace observed and how it was made. */
  readonly header: TraceHeader;
  /** Every heartbeat received, in order of arrival. */
  readonly arrivals: readonly TraceArrival[];
}
