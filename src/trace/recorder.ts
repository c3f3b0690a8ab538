/**
 * Recording heartbeat traces between real members, sans-I/O: it is told each heartbeat that arrived
 * (when, from which address, what it said) and keeps, per monitored peer, the arrivals of that peer's
 * heartbeats as a trace. The heartbeat monitor's trace recording (`fdkit record`) feeds it from its
 * socket; tests feed it directly.
 *
 * Every datagram of the life being recorded is kept, duplicates and reordered ones included (the replay
 * drops them, as the monitor does). A restart of the peer begins a new `life`; a straggler of a life
 * already replaced is left out, by the heartbeat monitor's rule (docs/heartbeat-monitor.md).
 */
import type { Heartbeat } from '../heartbeat/messages.js';
import { checkKnownKeys, checkNumber } from '../options.js';
import { TRACE_FORMAT, TRACE_VERSION, type Trace, type TraceArrival } from './trace.js';

/** Options of {@link TraceRecorder}. */
export interface TraceRecorderOptions {
  /** Addresses (`host:port`) of the peers to record, as they announce themselves or send from. */
  readonly peers: readonly string[];
  /** The interval the peers send at, for the traces' headers. */
  readonly intervalMs: number;
  /** Monotonic time of the start of the recording: t = 0 in the traces. */
  readonly startMs: number;
  /** Wall time of the start, in ms since the Unix epoch. */
  readonly startedAtUnixMs: number;
  /** The recorder's own address, for the traces' headers. */
  readonly recorder: string;
}

/** What the recorder saw of one peer so far. */
export interface PeerRecordingStatus {
  /** The peer's address (`host:port`, normalised), which names its trace. */
  readonly peer: string;
  /** The name from its heartbeats, once heard. */
  readonly name: string | undefined;
  /** Heartbeats recorded. */
  readonly heartbeats: number;
  /** Lives seen (restarts + 1); 0 before the first heartbeat. */
  readonly lives: number;
  /** Monotonic time of the last heartbeat recorded; NaN before the first. */
  readonly lastAtMs: number;
}

interface PeerRecord {
  readonly address: string;
  name: string | undefined;
  life: number;
  incarnation: number;
  nonce: number;
  retiredNonce: number;
  lastAtMs: number;
  readonly arrivals: TraceArrival[];
}

const OWNER = 'TraceRecorder';

/**
 * Heartbeat arrivals from a set of peers, one trace per peer.
 *
 * @example
 * ```ts
 * const recorder = new TraceRecorder({ peers: ['10.0.0.6:7947'], intervalMs: 1000, startMs: clock.now(),
 *   startedAtUnixMs: clock.wallNow(), recorder: '10.0.0.5:7947' });
 * recorder.record(clock.now(), fromAddress, heartbeat); // for each heartbeat received
 * const [trace] = recorder.traces(clock.now());
 * ```
 */
export class TraceRecorder {
  private readonly options: TraceRecorderOptions;
  private readonly byAddress = new Map<string, PeerRecord>();
  private lastAtMs = Number.NEGATIVE_INFINITY;

  constructor(options: TraceRecorderOptions) {
    checkKnownKeys(OWNER, options, ['peers', 'intervalMs', 'startMs', 'startedAtUnixMs', 'recorder']);
    checkNumber(OWNER, 'intervalMs', options.intervalMs, { min: 0, minExclusive: true });
    checkNumber(OWNER, 'startMs', options.startMs, {});
    checkNumber(OWNER, 'startedAtUnixMs', options.startedAtUnixMs, { min: 0 });
    this.options = options;
    for (const address of options.peers) {
      this.byAddress.set(address, {
        address,
        name: undefined,
        life: -1,
        incarnation: 0,
        nonce: 0,
        retiredNonce: -1,
        lastAtMs: Number.NaN,
        arrivals: [],
      });
    }
  }

  /**
   * Records a heartbeat that arrived at `atMs` (monotonic, never before the start nor an earlier call)
   * from `fromAddress`. Returns whether it was recorded: false for a sender that is not a peer, and for a
   * straggler of a past life.
   */
  record(atMs: number, fromAddress: string, heartbeat: Heartbeat): boolean {
    const peer = this.byAddress.get(heartbeat.address) ?? this.byAddress.get(fromAddress);
    if (peer === undefined) return false;
    // A clock that went back would make an invalid trace; the recording keeps its own order.
    const t = Math.max(atMs, this.lastAtMs, this.options.startMs);
    this.lastAtMs = t;
    if (peer.life < 0 || heartbeat.nonce !== peer.nonce || heartbeat.incarnation !== peer.incarnation) {
      const restart = peer.life >= 0;
      if (restart && (heartbeat.nonce === peer.retiredNonce || heartbeat.incarnation < peer.incarnation)) {
        return false;
      }
      if (restart) peer.retiredNonce = peer.nonce;
      peer.life++;
      peer.incarnation = heartbeat.incarnation;
      peer.nonce = heartbeat.nonce;
    }
    peer.name = heartbeat.from;
    peer.lastAtMs = t;
    const arrival = Math.round((t - this.options.startMs) * 1000) / 1000;
    peer.arrivals.push(
      peer.life === 0
        ? { t: arrival, seq: heartbeat.seq }
        : { t: arrival, seq: heartbeat.seq, life: peer.life },
    );
    return true;
  }

  /** What has been recorded of each peer, in the order they were given. */
  status(): PeerRecordingStatus[] {
    return [...this.byAddress.values()].map((p) => ({
      peer: p.address,
      name: p.name,
      heartbeats: p.arrivals.length,
      lives: p.life + 1,
      lastAtMs: p.lastAtMs,
    }));
  }

  /** One trace per peer, in the order they were given, ending at `endMs` (monotonic). */
  traces(endMs: number): Trace[] {
    const o = this.options;
    return [...this.byAddress.values()].map((p) => {
      const lastT = p.arrivals[p.arrivals.length - 1]?.t ?? 0;
      const durationMs = Math.max(lastT, Math.round((endMs - o.startMs) * 1000) / 1000);
      return {
        header: {
          format: TRACE_FORMAT,
          version: TRACE_VERSION,
          source: 'recorded',
          intervalMs: o.intervalMs,
          durationMs,
          recording: {
            peer: p.address,
            ...(p.name === undefined ? {} : { peerName: p.name }),
            recorder: o.recorder,
            startedAtUnixMs: o.startedAtUnixMs,
          },
        },
        arrivals: [...p.arrivals],
      };
    });
  }
}
