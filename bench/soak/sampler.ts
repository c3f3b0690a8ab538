/**
 * One sample of a member, read from its own `--http` API's `/metrics`: the process (heap, RSS, handles,
 * timers, event-loop delay: prom-client's defaults, which `fdkit agent` registers) and the member (its
 * gossip queue, late timers, view). A paused member does not answer: its sample is all nulls.
 */
import { EVENT_LOOP_SAMPLE_MS } from '../../src/cli/agent-http.js';
import type { MemberSample } from './checks.js';

/** Everything sampled of one member at one time. */
export interface SoakSample extends MemberSample {
  readonly handles: number | null;
  /** Timers keeping the loop alive (`nodejs_active_resources{type="Timeout"}`). */
  readonly timers: number | null;
  /**
   * Largest and 99th-percentile event-loop delay since the previous sample, ms: what the agent's
   * histogram holds less its sampling interval, which every sample of it includes.
   */
  readonly lagMaxMs: number | null;
  readonly lagP99Ms: number | null;
  /** Broadcasts waiting in the gossip queue. */
  readonly pendingBroadcasts: number | null;
  /** Protocol timers that fired late, cumulative for this life. */
  readonly lateTimers: number | null;
  /** Members of the view by state, the member itself included (tombstones count as dead). */
  readonly alive: number | null;
  readonly suspect: number | null;
  readonly dead: number | null;
}

/** The value of the sample `name` (with its labels, if any) in a Prometheus text exposition. */
export function metricValue(text: string, name: string): number | null {
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name} `)) {
      const v = Number(line.slice(name.length + 1));
      return Number.isFinite(v) ? v : null;
    }
  }
  return null;
}

/** Reads one sample out of a `/metrics` answer; no answer leaves every field null. */
export function toSample(
  head: Pick<MemberSample, 'atMs' | 'member' | 'life'>,
  metrics: string | undefined,
): SoakSample {
  const m = (name: string, scale = 1): number | null => {
    if (metrics === undefined) return null;
    const v = metricValue(metrics, name);
    return v === null ? null : v * scale;
  };
  const delay = (name: string): number | null => {
    const v = m(name, 1000);
    return v === null ? null : Math.max(0, v - EVENT_LOOP_SAMPLE_MS);
  };
  return {
    ...head,
    heapBytes: m('nodejs_heap_size_used_bytes'),
    rssBytes: m('process_resident_memory_bytes'),
    handles: m('nodejs_active_handles_total'),
    // prom-client leaves out a resource type with no instance.
    timers: m('nodejs_active_resources{type="Timeout"}') ?? (metrics === undefined ? null : 0),
    lagMaxMs: delay('nodejs_eventloop_lag_max_seconds'),
    lagP99Ms: delay('nodejs_eventloop_lag_p99_seconds'),
    pendingBroadcasts: m('fdkit_broadcast_queue_depth'),
    lateTimers: m('fdkit_late_timers_total'),
    alive: m('fdkit_members{state="alive"}'),
    suspect: m('fdkit_members{state="suspect"}'),
    dead: m('fdkit_members{state="dead"}'),
  };
}

/** Fetches `url`'s body, undefined when there is no answer within `timeoutMs`. */
export type Getter = (url: string, timeoutMs: number) => Promise<string | undefined>;

/** A getter on loopback, from this process. */
export const fetchGetter: Getter = async (url, timeoutMs) => {
  try {
    const answer = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    return answer.ok ? await answer.text() : undefined;
  } catch {
    return undefined;
  }
};
