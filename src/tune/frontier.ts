/**
 * The Pareto frontier of detector settings: those that no other setting beats on both detection time and
 * mistakes. Everything off the frontier is worse than some setting on it on one count and no better on
 * the other, so a choice between settings is a choice of a point on the frontier.
 */

/** What the frontier is computed over. */
export interface FrontierPoint {
  /** How fast the setting detects, in ms: the first axis, lower is better. */
  readonly detectionMs: number;
  /** How accurate it is. */
  readonly qos: {
    /** Mistakes over the trace: the second axis, lower is better. */
    readonly mistakes: number;
    /** Query accuracy probability P_A in [0, 1]: breaks ties, higher is better. */
    readonly queryAccuracy: number;
  };
}

/**
 * The points not dominated by another (another is at least as fast with strictly fewer mistakes, or
 * strictly faster with no more), fastest first. Among points equal on both counts, the most accurate
 * (highest P_A) is kept, then the first given.
 */
export function paretoFrontier<P extends FrontierPoint>(points: readonly P[]): P[] {
  const sorted = points
    .map((p, i) => ({ p, i }))
    .sort(
      (a, b) =>
        a.p.detectionMs - b.p.detectionMs ||
        a.p.qos.mistakes - b.p.qos.mistakes ||
        b.p.qos.queryAccuracy - a.p.qos.queryAccuracy ||
        a.i - b.i,
    );
  const frontier: P[] = [];
  let fewest = Number.POSITIVE_INFINITY;
  for (const { p } of sorted) {
    if (p.qos.mistakes < fewest && !Number.isNaN(p.detectionMs)) {
      frontier.push(p);
      fewest = p.qos.mistakes;
    }
  }
  return frontier;
}
