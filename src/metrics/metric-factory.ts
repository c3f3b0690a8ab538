/**
 * Makes fdkit's prom-client metrics from the name table, under a prefix, and keeps them for
 * registration. Most read the source on scrape (prom-client's `collect`), so the protocol's hot path
 * pays nothing for being measured; the few that events drive are plain counters and histograms.
 */
import type { Counter, Gauge, Histogram, Metric } from 'prom-client';
import type { MetricDefinition } from './metric-names.js';
import type { PromClient } from './prom-client.js';

/** Values by label value: `{ udp: 3, tcp: 1 }` for a metric labelled `transport`. */
export type LabelledValues = Readonly<Record<string, number>>;

export class MetricFactory {
  /** Every metric made, in order: what gets registered, and unregistered on close. */
  readonly made: Metric[] = [];

  constructor(
    private readonly prom: PromClient,
    private readonly prefix: string,
  ) {}

  /** A counter whose value is read from a cumulative counter of the source on every scrape. */
  countOf(def: MetricDefinition, read: () => number): void {
    const counter: Counter = new this.prom.Counter({
      ...this.config(def),
      collect: () => {
        counter.reset();
        counter.inc(read());
      },
    });
    this.made.push(counter);
  }

  /** A counter with one label, each label value's count read on every scrape. */
  countsBy(def: MetricDefinition, read: () => LabelledValues): void {
    const label = this.onlyLabel(def);
    const counter: Counter = new this.prom.Counter({
      ...this.config(def),
      collect: () => {
        counter.reset();
        for (const [value, count] of Object.entries(read())) counter.inc({ [label]: value }, count);
      },
    });
    this.made.push(counter);
  }

  /** A gauge read on every scrape. */
  gaugeOf(def: MetricDefinition, read: () => number): void {
    const gauge: Gauge = new this.prom.Gauge({ ...this.config(def), collect: () => gauge.set(read()) });
    this.made.push(gauge);
  }

  /**
   * A gauge with one label, read on every scrape. Label values missing from a reading lose their
   * series, which is how a member that left the top of the phi ranking stops being exported.
   */
  gaugesBy(def: MetricDefinition, read: () => LabelledValues): void {
    const label = this.onlyLabel(def);
    const gauge: Gauge = new this.prom.Gauge({
      ...this.config(def),
      collect: () => {
        gauge.reset();
        for (const [value, reading] of Object.entries(read())) gauge.set({ [label]: value }, reading);
      },
    });
    this.made.push(gauge);
  }

  /** A counter that events increment. */
  counter(def: MetricDefinition): Counter {
    const counter = new this.prom.Counter(this.config(def));
    this.made.push(counter);
    return counter;
  }

  /** A histogram that events observe. */
  histogram(def: MetricDefinition, buckets: readonly number[]): Histogram {
    const histogram = new this.prom.Histogram({ ...this.config(def), buckets: [...buckets] });
    this.made.push(histogram);
    return histogram;
  }

  private config(def: MetricDefinition): {
    name: string;
    help: string;
    labelNames: string[];
    registers: [];
  } {
    // Registered by the caller once every name is known to be free: all of them or none.
    return { name: this.prefix + def.name, help: def.help, labelNames: [...def.labels], registers: [] };
  }

  private onlyLabel(def: MetricDefinition): string {
    // The table gives these metrics exactly one label.
    return def.labels[0]!;
  }
}
