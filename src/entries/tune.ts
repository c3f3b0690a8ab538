/**
 * `fdkit/tune`: choosing a detector's settings from heartbeat traces. Generate a trace or read a
 * recorded one, replay it through detectors, measure each setting's quality of service (Chen, Toueg and
 * Aguilera: detection time, mistake rate, query accuracy), and let {@link tuneDetectors} sweep a grid and
 * recommend one. Recording traces between real members is `recordTraces`, in `fdkit/node`.
 *
 * @module fdkit/tune
 */
export {
  InvalidArgumentError,
  type InvalidOptionCode,
  InvalidOptionError,
  TraceFormatError,
} from '../errors.js';
export { type QosMetrics, qosMetrics } from '../qos/metrics.js';
export type { DelayModel } from '../trace/delay.js';
export type { Distribution } from '../trace/distribution.js';
export {
  type GenerateTraceOptions,
  generateTrace,
  type RandomPausesOptions,
  randomPauses,
  type SenderPause,
} from '../trace/generate.js';
export { burstyLoss, type LossModel } from '../trace/loss.js';
export { type PeerRecordingStatus, TraceRecorder, type TraceRecorderOptions } from '../trace/recorder.js';
export {
  type PreparedTrace,
  prepareTrace,
  type Replay,
  replayTrace,
  type SuspicionInterval,
} from '../trace/replay.js';
export { summarizeTrace, type TraceSummary } from '../trace/summary.js';
export {
  type JsonObject,
  type JsonValue,
  TRACE_FORMAT,
  TRACE_VERSION,
  type Trace,
  type TraceArrival,
  type TraceHeader,
  type TraceRecording,
} from '../trace/trace.js';
export { checkTrace, formatTrace, parseTrace, type TraceSourceOptions } from '../trace/trace-format.js';
export {
  createDetector,
  DETECTOR_FAMILIES,
  type DetectorConfig,
  type DetectorFamily,
  describeConfig,
} from '../tune/detector-config.js';
export { type FrontierPoint, paretoFrontier } from '../tune/frontier.js';
export { defaultGrid } from '../tune/grid.js';
export {
  type DetectionStat,
  type TuneCandidate,
  type TuneOptions,
  type TuneProgress,
  type TuneResult,
  tuneDetectors,
} from '../tune/tune.js';
