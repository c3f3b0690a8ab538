/**
 * The metrics that member events drive, for both sources: transitions by state and cause, deaths by
 * cause, and the detection time, from a member's first suspicion to its death. No counter of the
 * source holds these: its `deaths` counts only the deaths it declared itself, not those it heard.
 */
import type { Counter, Histogram } from 'prom-client';
import type { MemberEvent, TransitionCause } from '../membership/events.js';
import type { MetricFactory } from './metric-factory.js';
import { METRICS } from './metric-names.js';

/** A member event's type: the state entered, or `update`. */
export type MemberEventType = MemberEvent['type'];

/** Anything that emits member events the way a SWIM node and a heartbeat monitor do. */
export interface MemberEventSource {
  /** Subscribes `listener` to one kind of member event. */
  on(event: MemberEventType, listener: (event: MemberEvent) => void): unknown;
  /** Removes a listener that `on` added. */
  off(event: MemberEventType, listener: (event: MemberEvent) => void): unknown;
}

/** The first suspicion of a member's life, while it lasts. */
interface Suspicion {
  readonly incarnation: number;
  readonly atMs: number;
}

/**
 * Turns member events into the event-driven metrics. Suspicions are kept only while they last (a
 * member's suspicion ends alive, dead or left), and at most `membersMax` at once, so a source that
 * forgets members without an event cannot make this grow.
 */
class TransitionRecorder {
  private readonly suspected = new Map<string, Suspicion>();

  constructor(
    private readonly transitions: Counter,
    private readonly deaths: Counter,
    private readonly detection: Histogram,
    private readonly membersMax: number,
  ) {}

  record(event: MemberEvent): void {
    this.transitions.inc({ state: event.type, cause: event.cause });
    switch (event.type) {
      case 'suspect':
        // The first suspicion of this life counts; one of a later life starts over.
        if (this.suspected.get(event.member)?.incarnation !== event.incarnation) {
          if (this.suspected.size >= this.membersMax) this.suspected.clear();
          this.suspected.set(event.member, { incarnation: event.incarnation, atMs: event.atMs });
        }
        return;
      case 'dead': {
        this.deaths.inc({ cause: event.cause });
        const suspicion = this.suspected.get(event.member);
        if (suspicion?.incarnation === event.incarnation) {
          this.detection.observe((event.atMs - suspicion.atMs) / 1000);
        }
        this.suspected.delete(event.member);
        return;
      }
      case 'alive':
      case 'left':
        this.suspected.delete(event.member);
        return;
      case 'update':
        return;
    }
  }
}

/** What {@link transitionMetrics} needs to know of the source. */
export interface TransitionOptions {
  /** The event types the source emits. */
  readonly types: readonly MemberEventType[];
  /** The causes of death it reports, at zero from the start so that a rate over the first is not lost. */
  readonly deathCauses: readonly TransitionCause[];
  readonly detectionBuckets: readonly number[];
  /** Suspicions tracked at once, at most. */
  readonly membersMax: number;
}

/** Makes the event-driven metrics and subscribes to the source; returns what unsubscribes. */
export function transitionMetrics(
  factory: MetricFactory,
  source: MemberEventSource,
  options: TransitionOptions,
): () => void {
  const deaths = factory.counter(METRICS.deaths);
  for (const cause of options.deathCauses) deaths.inc({ cause }, 0);
  const recorder = new TransitionRecorder(
    factory.counter(METRICS.transitions),
    deaths,
    factory.histogram(METRICS.detection, options.detectionBuckets),
    options.membersMax,
  );
  const listener = (event: MemberEvent): void => recorder.record(event);
  for (const type of options.types) source.on(type, listener);
  return () => {
    for (const type of options.types) source.off(type, listener);
  };
}
