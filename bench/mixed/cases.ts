/**
 * The clusters of the mixed-cluster bench: which implementation each member runs (five, and six for the
 * death watch's case), who seeds the cluster and who is killed. Data only.
 */
import type { Implementation } from './analysis.js';

/** One cluster layout and its victim. */
export interface MixedCase {
  readonly id: string;
  /** What the tables call it. */
  readonly label: string;
  /** The members in start order: the first is the seed every other one joins. */
  readonly members: readonly Implementation[];
  /** Index into {@link MixedCase.members}: never the seed, so that no seed's own role is measured. */
  readonly victim: number;
}

export const CASES: readonly MixedCase[] = [
  { id: 'pure-go', label: 'pure Go (5 Go)', members: ['go', 'go', 'go', 'go', 'go'], victim: 4 },
  {
    id: 'pure-fdkit',
    label: 'pure fdkit (5 fdkit)',
    members: ['fdkit', 'fdkit', 'fdkit', 'fdkit', 'fdkit'],
    victim: 4,
  },
  // The Go seed makes the fdkit members learn of the others through memberlist's push-pull.
  {
    id: 'mixed-go-victim',
    label: 'mixed (3 Go + 2 fdkit), Go killed',
    members: ['go', 'go', 'go', 'fdkit', 'fdkit'],
    victim: 2,
  },
  {
    id: 'mixed-fdkit-victim',
    label: 'mixed (3 Go + 2 fdkit), fdkit killed',
    members: ['go', 'go', 'go', 'fdkit', 'fdkit'],
    victim: 4,
  },
  // With a third fdkit member each fdkit member has two fdkit watchers, whose refusals convict.
  {
    id: 'mixed-3fdkit-victim',
    label: 'mixed (3 Go + 3 fdkit), fdkit killed',
    members: ['go', 'go', 'go', 'fdkit', 'fdkit', 'fdkit'],
    victim: 5,
  },
];

/** The cases whose ids are listed, in {@link CASES}' order, or the first id that names none. */
export function pickCases(ids: readonly string[]): MixedCase[] | string {
  const unknown = ids.find((id) => !CASES.some((c) => c.id === id));
  if (unknown !== undefined) return unknown;
  return CASES.filter((c) => ids.includes(c.id));
}

/** Member names: `go-1`, `fdkit-1`, ... numbered per implementation, in start order. */
export function memberNames(c: MixedCase): string[] {
  const counts: Record<Implementation, number> = { go: 0, fdkit: 0 };
  return c.members.map((impl) => `${impl}-${++counts[impl]}`);
}
