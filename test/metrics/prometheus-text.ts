/**
 * A reader of the Prometheus text format (version 0.0.4), for the metrics suites: the tests check what
 * a scrape shows, as Prometheus would read it, not what the metric objects hold.
 */
import type { Registry } from 'prom-client';

/** One sample line: a metric name, its labels and its value. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** A parsed scrape. */
export class Scrape {
  constructor(
    readonly samples: readonly Sample[],
    /** `# TYPE` of each metric family, by name. */
    readonly types: ReadonlyMap<string, string>,
  ) {}

  /** The samples of `name` whose labels include `labels`. */
  series(name: string, labels: Readonly<Record<string, string>> = {}): Sample[] {
    return this.samples.filter(
      (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
    );
  }

  /** The value of the one sample of `name` with exactly these labels; throws when there is none. */
  value(name: string, labels: Readonly<Record<string, string>> = {}): number {
    const keys = Object.keys(labels);
    const found = this.series(name, labels).filter((s) => Object.keys(s.labels).length === keys.length);
    if (found.length !== 1) {
      throw new Error(`${found.length} samples of ${name}${JSON.stringify(labels)} in the scrape`);
    }
    return found[0]!.value;
  }

  /** The sum of the samples of `name` whose labels include `labels`. */
  sum(name: string, labels: Readonly<Record<string, string>> = {}): number {
    return this.series(name, labels).reduce((total, s) => total + s.value, 0);
  }
}

const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

function parseValue(text: string): number {
  if (text === '+Inf') return Number.POSITIVE_INFINITY;
  if (text === '-Inf') return Number.NEGATIVE_INFINITY;
  const value = Number(text);
  if (Number.isNaN(value) && text !== 'NaN') throw new Error(`not a sample value: ${text}`);
  return value;
}

/** Parses the text exposition format; throws on a line it cannot read. */
export function parsePrometheusText(text: string): Scrape {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      const type = /^# TYPE (\S+) (\S+)$/.exec(line);
      if (type) types.set(type[1]!, type[2]!);
      continue;
    }
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (match[3] ?? '').matchAll(LABEL)) labels[l[1]!] = l[2]!.replace(/\\(.)/g, '$1');
    samples.push({ name: match[1]!, labels, value: parseValue(match[4]!) });
  }
  return new Scrape(samples, types);
}

/** Scrapes `registry` as Prometheus does, through its text output. */
export async function scrape(registry: Registry): Promise<Scrape> {
  return parsePrometheusText(await registry.metrics());
}
