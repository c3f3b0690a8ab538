/**
 * Recording heartbeat traces between real members (`fdkit record`): a heartbeat monitor
 * (`heartbeat-monitor.ts`) binds the address, sends heartbeats to the peers and watches them, and a tap on
 * its transport hands every heartbeat datagram it receives to a {@link TraceRecorder} with its arrival
 * time, before the monitor sees it. The recording ends after its duration or when the signal aborts, and
 * yields one trace per peer.
 *
 * Peers are other recorders or heartbeat monitors (`createHeartbeatMonitor`) that list this one as a peer:
 * both send heartbeats with the same codec. They should send at the interval given here, which the traces
 * state in their header.
 */
import { InvalidOptionError } from '../errors.js';
import type { MemberEvent } from '../membership/events.js';
import { checkNumber } from '../options.js';
import type { Clock, Timer } from '../runtime/clock.js';
import { systemClock } from '../runtime/system.js';
import { type PeerRecordingStatus, TraceRecorder } from '../trace/recorder.js';
import type { Trace } from '../trace/trace.js';
import { normalizeAddress } from '../transport/address.js';
import { createNetTransport } from '../transport/net-transport.js';
import type { Transport } from '../transport/transport.js';
import { decodeHeartbeat } from '../wire/decode.js';
import { createHeartbeatMonitor } from './heartbeat-monitor.js';
import type { TransportFactory } from './node-options.js';

/** Options of {@link recordTraces}. */
export interface RecordTracesOptions {
  /** `host:port` to bind; port 0 picks a free one (see `onListening`). */
  readonly bind: string;
  /** `host:port` of each peer to record; at least one. */
  readonly peers: readonly string[];
  /** How long to record, in ms. In (0, 7 days]. */
  readonly durationMs: number;
  /** The heartbeat interval, of this member and of the peers. Default 1000. In [1, 3,600,000]. */
  readonly intervalMs?: number;
  /** This member's name in its heartbeats. Default the host name and the port. */
  readonly name?: string;
  /** Ends the recording early; the traces then end there. */
  readonly signal?: AbortSignal;
  /** Called once bound, with the address peers should send to. */
  readonly onListening?: (address: string) => void;
  /** Called every `progressEveryMs` with what was recorded so far. */
  readonly onProgress?: (progress: RecordingProgress) => void;
  /** The period of `onProgress` calls, in ms. Default 10,000. */
  readonly progressEveryMs?: number;
  /** Called with each transition the monitor sees (a peer alive, suspected, dead). */
  readonly onEvent?: (event: MemberEvent) => void;
  /** Clock of the monitor and of the arrival times. Default the system clock. */
  readonly clock?: Clock;
  /** Makes the transport. Default UDP and TCP (`createNetTransport`). */
  readonly transport?: TransportFactory;
}

/** What {@link RecordTracesOptions.onProgress} receives. */
export interface RecordingProgress {
  /** Time recorded so far, in ms since the recording began. */
  readonly elapsedMs: number;
  /** The recording's planned length in ms, {@link RecordTracesOptions.durationMs}. */
  readonly durationMs: number;
  /** One status per peer, in the order of {@link RecordTracesOptions.peers}. */
  readonly peers: readonly PeerRecordingStatus[];
}

const OWNER = 'recordTraces';
const WEEK_MS = 604_800_000;

function invalid(option: string, message: string): InvalidOptionError {
  return new InvalidOptionError('FDKIT_INVALID_OPTION', option, `${OWNER}: ${message}`);
}

/**
 * Records the heartbeats of `peers` for `durationMs`; resolves with one trace per peer, in the order
 * given.
 *
 * @example
 * ```ts
 * const [trace] = await recordTraces({ bind: '0.0.0.0:7947', peers: ['10.0.0.6:7947'], durationMs: 3_600_000 });
 * writeFileSync('10.0.0.6.jsonl', formatTrace(trace));
 * ```
 * @throws `InvalidOptionError` for bad options; rejects with a `NetworkError` when the address cannot be
 *   bound or a peer address is not `host:port`.
 */
export async function recordTraces(options: RecordTracesOptions): Promise<Trace[]> {
  const peers = options.peers.map((p) => normalizeAddress(p, { label: 'peer address' }));
  if (peers.length === 0) throw invalid('peers', 'option peers must list at least one host:port');
  if (new Set(peers).size !== peers.length) throw invalid('peers', 'option peers lists an address twice');
  const durationMs = checkNumber(OWNER, 'durationMs', options.durationMs, {
    min: 0,
    minExclusive: true,
    max: WEEK_MS,
  });
  const intervalMs = checkNumber(OWNER, 'intervalMs', options.intervalMs ?? 1000, { min: 1, max: 3_600_000 });
  const progressEveryMs = checkNumber(OWNER, 'progressEveryMs', options.progressEveryMs ?? 10_000, {
    min: 1,
    max: WEEK_MS,
  });
  const clock = options.clock ?? systemClock;
  let recorder: TraceRecorder | undefined;
  const factory = options.transport ?? createNetTransport;
  const monitor = createHeartbeatMonitor({
    bind: options.bind,
    peers,
    intervalMs,
    clock,
    ...(options.name === undefined ? {} : { name: options.name }),
    transport: async (transportOptions) =>
      tap(await factory(transportOptions), (bytes, from) => {
        if (recorder === undefined) return;
        const decoded = decodeHeartbeat(bytes);
        if (decoded.ok) recorder.record(clock.now(), from, decoded.heartbeat);
      }),
  });
  const onEvent = options.onEvent;
  if (onEvent !== undefined)
    for (const type of ['alive', 'suspect', 'dead'] as const) monitor.on(type, onEvent);
  await monitor.start();
  const startMs = clock.now();
  const active = new TraceRecorder({
    peers,
    intervalMs,
    startMs,
    startedAtUnixMs: clock.wallNow(),
    recorder: monitor.localAddress,
  });
  recorder = active;
  options.onListening?.(monitor.localAddress);

  let endTimer: Timer | undefined;
  let progressTimer: Timer | undefined;
  let endMs = startMs;
  try {
    await new Promise<void>((resolve) => {
      const signal = options.signal;
      if (signal?.aborted) return resolve();
      signal?.addEventListener('abort', () => resolve(), { once: true });
      endTimer = clock.setTimer(durationMs, resolve);
      const onProgress = options.onProgress;
      if (onProgress === undefined) return;
      const report = (): void => {
        onProgress({ elapsedMs: clock.now() - startMs, durationMs, peers: active.status() });
        progressTimer = clock.setTimer(progressEveryMs, report);
      };
      progressTimer = clock.setTimer(progressEveryMs, report);
    });
    endMs = clock.now();
  } finally {
    endTimer?.cancel();
    progressTimer?.cancel();
    recorder = undefined;
    await monitor.shutdown();
  }
  return active.traces(endMs);
}

/** `transport`, with `onDatagram` handlers preceded by `listener`. */
function tap(transport: Transport, listener: (bytes: Uint8Array, from: string) => void): Transport {
  const tapped: Transport = {
    get localAddress() {
      return transport.localAddress;
    },
    sendDatagram: (address, bytes) => transport.sendDatagram(address, bytes),
    sendStream: (address, bytes) => transport.sendStream(address, bytes),
    onDatagram: (handler) =>
      transport.onDatagram((bytes, from) => {
        listener(bytes, from);
        handler(bytes, from);
      }),
    onStream: (handler) => transport.onStream(handler),
    counters: () => transport.counters(),
    close: () => transport.close(),
  };
  return tapped;
}
