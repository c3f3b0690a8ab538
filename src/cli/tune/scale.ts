/**
 * Axes of the report's charts: linear and logarithmic scales from data to pixels, with ticks at round
 * values (1, 2 and 5 times a power of ten).
 */

/** A tick: where, and its label. */
export interface Tick {
  readonly value: number;
  readonly label: string;
}

/** Maps data values to pixels, and says where the ticks go. */
export interface Scale {
  readonly kind: 'linear' | 'log';
  /** The data range shown, [low, high]. */
  readonly domain: readonly [number, number];
  at(value: number): number;
  ticks(): Tick[];
}

/** A short label for a tick value: `0.05`, `2`, `1k`, `20k`. */
export function tickLabel(value: number): string {
  if (value >= 1000 && value % 1000 === 0) return `${value / 1000}k`;
  return Number(value.toPrecision(3)).toString();
}

/** A linear scale of [low, high] onto [from, to] pixels, with about `count` ticks. */
export function linearScale(low: number, high: number, from: number, to: number, count = 6): Scale {
  const span = high - low || 1;
  const raw = span / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power;
  return {
    kind: 'linear',
    domain: [low, high],
    at: (value) => from + ((value - low) / span) * (to - from),
    ticks() {
      const out: Tick[] = [];
      for (let v = Math.ceil(low / step) * step; v <= high + step * 1e-9; v += step) {
        const value = Number(v.toPrecision(12));
        out.push({ value, label: tickLabel(value) });
      }
      return out;
    },
  };
}

/** A logarithmic scale of [low, high] (both > 0) onto [from, to] pixels, ticks at 1, 2 and 5 × 10^k. */
export function logScale(low: number, high: number, from: number, to: number): Scale {
  const l0 = Math.log10(low);
  const span = Math.log10(high) - l0 || 1;
  return {
    kind: 'log',
    domain: [low, high],
    at: (value) => from + ((Math.log10(value) - l0) / span) * (to - from),
    ticks() {
      const decades = Math.log10(high) - l0;
      // Over many decades, 2 and 5 would crowd the axis.
      const multiples = decades > 4 ? [1] : [1, 2, 5];
      const out: Tick[] = [];
      for (let k = Math.floor(l0); k <= Math.ceil(Math.log10(high)); k++) {
        for (const m of multiples) {
          const value = Number((m * 10 ** k).toPrecision(6));
          if (value >= low * (1 - 1e-9) && value <= high * (1 + 1e-9))
            out.push({ value, label: tickLabel(value) });
        }
      }
      return out;
    },
  };
}
