/**
 * The benches' SVG chart helper (`bench/support/svg-chart.ts`): the structure of what it draws, not
 * its pixels. Each chart must be one well-formed SVG element with its title, one path group per line
 * series (split at gaps), one bar per present value, a legend entry per series, and escaped text.
 */
import { describe, expect, it } from 'vitest';
import {
  barChart,
  escapeXml,
  formatNumber,
  linearTicks,
  lineChart,
  logTicks,
  wrapText,
} from '../../bench/support/svg-chart.js';

/** The elements of `svg` with class `cls`. */
function byClass(svg: string, cls: string): string[] {
  return svg.match(new RegExp(`<[a-z]+ class="${cls}"[^>]*>`, 'g')) ?? [];
}

/** Opening and closing tags balance (a rough well-formedness check without a parser). */
function balanced(svg: string): boolean {
  const stack: string[] = [];
  for (const m of svg.matchAll(/<(\/?)([a-zA-Z]+)[^>]*?(\/?)>/g)) {
    const [, closing, name, selfClosing] = m;
    if (selfClosing === '/') continue;
    if (closing === '/') {
      if (stack.pop() !== name) return false;
    } else stack.push(name!);
  }
  return stack.length === 0;
}

/** The numbers of the `d` attribute of every path in `svg`, as [x, y] pairs. */
function pathPoints(svg: string): [number, number][][] {
  return [...svg.matchAll(/<path d="([^"]+)"/g)].map((m) =>
    m[1]!
      .replace(/[ML]/g, ' ')
      .trim()
      .split(/\s+/)
      .map((pair) => pair.split(',').map(Number) as [number, number]),
  );
}

describe('ticks and labels', () => {
  it('linearTicks gives round steps covering the range', () => {
    expect(linearTicks(0, 10)).toEqual([0, 2, 4, 6, 8, 10]);
    const t = linearTicks(3, 97);
    expect(t[0]).toBeLessThanOrEqual(3);
    expect(t[t.length - 1]).toBeGreaterThanOrEqual(97);
    const steps = t.slice(1).map((x, i) => x - t[i]!);
    expect(new Set(steps.map((s) => s.toFixed(9))).size).toBe(1);
    expect([1, 2, 2.5, 5].map((m) => m * 10)).toContain(steps[0]);
    // A single value still gets a range around it.
    expect(linearTicks(5, 5).length).toBeGreaterThan(1);
  });

  it('logTicks gives powers of ten, with 2 and 5 inside a single decade', () => {
    expect(logTicks(3, 4000)).toEqual([1, 10, 100, 1000, 10000]);
    expect(logTicks(2, 8)).toEqual([1, 2, 5, 10]);
  });

  it('formatNumber shortens large values and keeps small ones readable', () => {
    expect(formatNumber(0)).toBe('0');
    expect(formatNumber(12)).toBe('12');
    expect(formatNumber(250)).toBe('250');
    expect(formatNumber(0.25)).toBe('0.25');
    expect(formatNumber(15000)).toBe('15k');
    expect(formatNumber(2_500_000)).toBe('2.5M');
  });

  it('escapeXml escapes markup characters', () => {
    expect(escapeXml(`a < b & "c" > 'd'`)).toBe('a &lt; b &amp; &quot;c&quot; &gt; &apos;d&apos;');
  });

  it('wrapText breaks at spaces within the width', () => {
    expect(wrapText('Lifeguard off, fdkit extras off', 14)).toEqual([
      'Lifeguard off,',
      'fdkit extras',
      'off',
    ]);
    expect(wrapText('averyveryverylongword x', 5)).toEqual(['averyveryverylongword', 'x']);
  });
});

describe('lineChart', () => {
  const svg = lineChart({
    title: 'Detection <vs> loss & more',
    xLabel: 'loss (%)',
    yLabel: 'seconds',
    series: [
      {
        name: 'first death',
        points: [
          { x: 0, y: 9 },
          { x: 5, y: 10 },
          { x: 10, y: 12 },
        ],
      },
      {
        name: 'with a gap',
        dashed: true,
        points: [
          { x: 0, y: 1 },
          { x: 5, y: null },
          { x: 10, y: 3 },
          { x: 20, y: 4 },
        ],
      },
    ],
    note: 'median of 5 seeds',
  });

  it('is one balanced SVG element with a title, escaped', () => {
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(balanced(svg)).toBe(true);
    expect(svg).toContain('<title>Detection &lt;vs&gt; loss &amp; more</title>');
    expect(svg).not.toContain('<vs>');
    expect(byClass(svg, 'note')).toHaveLength(1);
  });

  it('draws one group per series, split into paths at gaps, and a legend entry for each', () => {
    expect(byClass(svg, 'series')).toHaveLength(2);
    expect(byClass(svg, 'legend-item')).toHaveLength(2);
    const paths = pathPoints(svg);
    // The first series is one path of 3 points; the second is split by its null into 1 + 2 points.
    expect(paths.map((p) => p.length)).toEqual([3, 1, 2]);
    expect(svg.match(/<circle /g)).toHaveLength(6);
    expect(svg).toContain('stroke-dasharray');
  });

  it('places larger values higher and larger x further right, inside the plot frame', () => {
    const [first] = pathPoints(svg);
    const xs = first!.map((p) => p[0]);
    const ys = first!.map((p) => p[1]);
    expect(xs[1]).toBeGreaterThan(xs[0]!);
    expect(xs[2]).toBeGreaterThan(xs[1]!);
    expect(ys[1]).toBeLessThan(ys[0]!);
    expect(ys[2]).toBeLessThan(ys[1]!);
    const frame = byClass(svg, 'plot-frame')[0]!;
    const attr = (name: string): number => Number(new RegExp(` ${name}="([^"]+)"`).exec(frame)![1]);
    for (const [x, y] of pathPoints(svg).flat()) {
      expect(x).toBeGreaterThanOrEqual(attr('x') - 0.1);
      expect(x).toBeLessThanOrEqual(attr('x') + attr('width') + 0.1);
      expect(y).toBeGreaterThanOrEqual(attr('y') - 0.1);
      expect(y).toBeLessThanOrEqual(attr('y') + attr('height') + 0.1);
    }
  });

  it('labels the distinct x values as ticks, and spaces them by their logarithm on a log axis', () => {
    const ticks = byClass(svg, 'x-tick');
    expect(ticks).toHaveLength(4);
    const log = lineChart({
      title: 'size',
      xLabel: 'members',
      yLabel: 's',
      logX: true,
      series: [
        {
          name: 'a',
          points: [10, 100, 1000].map((x) => ({ x, y: 1 })),
        },
      ],
    });
    const xs = pathPoints(log)[0]!.map((p) => p[0]);
    expect(xs[1]! - xs[0]!).toBeCloseTo(xs[2]! - xs[1]!, 1);
  });
});

describe('barChart', () => {
  const svg = barChart({
    title: 'False positives',
    yLabel: 'events',
    categories: ['Lifeguard off, fdkit extras off', 'Lifeguard on'],
    logY: true,
    series: [
      { name: 'suspicions', values: [4500, 1000] },
      { name: 'deaths', values: [190, 0] },
      { name: 'unknown', values: [null, 3] },
    ],
  });

  it('is one balanced SVG element with a group per category and a legend entry per series', () => {
    expect(balanced(svg)).toBe(true);
    expect(byClass(svg, 'group')).toHaveLength(2);
    expect(byClass(svg, 'legend-item')).toHaveLength(3);
    expect(byClass(svg, 'category').length).toBeGreaterThanOrEqual(2);
  });

  it('draws a bar per positive value, and labels every slot, zero and missing ones included', () => {
    // 4500, 1000, 190 and 3; the 0 has no bar on a log axis, the null none at all.
    expect(byClass(svg, 'bar')).toHaveLength(4);
    const labels = [...svg.matchAll(/class="bar-label"[^>]*>([^<]*)</g)].map((m) => m[1]);
    expect(labels).toEqual(['4500', '190', 'n/a', '1000', '0', '3']);
  });

  it('makes a larger value a taller bar', () => {
    const heights = byClass(svg, 'bar').map((b) => Number(/ height="([^"]+)"/.exec(b)![1]));
    expect(heights[0]).toBeGreaterThan(heights[1]!); // 4500 > 190
    expect(heights[2]).toBeGreaterThan(heights[3]!); // 1000 > 3
  });

  it('starts linear bars at zero', () => {
    const linear = barChart({
      title: 't',
      yLabel: 'y',
      categories: ['a', 'b'],
      series: [{ name: 's', values: [2, 4] }],
    });
    const heights = byClass(linear, 'bar').map((b) => Number(/ height="([^"]+)"/.exec(b)![1]));
    expect(heights[1]! / heights[0]!).toBeCloseTo(2, 5);
  });
});
