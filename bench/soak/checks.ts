/**
 * The soak's verdicts, pure so that the unit tests can hand them histories that must fail: growth of heap
 * and RSS between the fifth minute and the last, and deaths declared of members that no fault touched at
 * the time.
 */
import type { Fault } from './schedule.js';

/** One sample of one member's process (a field is null when the member did not answer in time). */
export interface MemberSample {
  /** Ms after the start of the soak. */
  readonly atMs: number;
  readonly member: string;
  /** Which process of the member: 0 for the first, one more per restart. */
  readonly life: number;
  readonly heapBytes: number | null;
  readonly rssBytes: number | null;
}

/** The most the floor of heap and RSS may rise between the two windows, per member, bytes. */
export interface GrowthBound {
  readonly heapBytes: number;
  readonly rssBytes: number;
}

/**
 * The bound the soak holds every member to, between the floors of two windows of five minutes: from the
 * fifth minute, and the last. The window is longer than the cycle of V8's old-space collections in these
 * members (about four minutes: the heap saw-tooth of soak.svg, 12 to 19 MiB), so each floor is a heap
 * just collected; one-minute windows caught the saw-tooth at different heights and moved by ±5 MiB with
 * no leak. Over the five-minute floors of the first 30-minute run, heap grew by −0.15 to +0.53 MiB and
 * RSS by +1.2 to +2.6 MiB per member. The bounds, 2 MiB of heap and 8 MiB of RSS, leave three to four
 * times that, and still catch a leak of 1.7 kB a second of heap (20 minutes between the windows' middles):
 * a kilobyte per message at the few messages a second a member handles.
 */
export const GROWTH_BOUND: GrowthBound = { heapBytes: 2 * 2 ** 20, rssBytes: 8 * 2 ** 20 };

/** The length of the windows whose floors are compared (see {@link GROWTH_BOUND}). */
export const GROWTH_WINDOW_MS = 5 * 60_000;

/** One member's floor in the first window and in the last. */
export interface Growth {
  readonly member: string;
  readonly metric: 'heap' | 'rss';
  readonly fromBytes: number;
  readonly toBytes: number;
  readonly growthBytes: number;
  readonly boundBytes: number;
}

/** The windows compared: [fromMs, fromMs + windowMs) and (endMs − windowMs, endMs]. */
export interface GrowthWindows {
  readonly fromMs: number;
  readonly endMs: number;
  readonly windowMs: number;
}

/** What the growth check found: every member measured, and the violations as sentences. */
export interface GrowthVerdict {
  readonly growths: readonly Growth[];
  readonly failures: readonly string[];
}

function floor(values: readonly (number | null)[]): number | undefined {
  const known = values.filter((v): v is number => v !== null);
  return known.length === 0 ? undefined : Math.min(...known);
}

/**
 * Compares, per member whose process lived through both windows, the lowest heap and RSS of each window:
 * the floor a leak raises, where a median would move with the garbage collector's saw-tooth. A member
 * restarted in between is not compared (its heap started over). Fails when a floor rose by more than
 * the bound, or when no member could be compared at all (a check that checked nothing).
 */
export function checkGrowth(
  samples: readonly MemberSample[],
  w: GrowthWindows,
  bound: GrowthBound,
): GrowthVerdict {
  const inFirst = (s: MemberSample): boolean => s.atMs >= w.fromMs && s.atMs < w.fromMs + w.windowMs;
  const inLast = (s: MemberSample): boolean => s.atMs > w.endMs - w.windowMs && s.atMs <= w.endMs;
  const members = [...new Set(samples.map((s) => s.member))].sort();
  const growths: Growth[] = [];
  const failures: string[] = [];
  for (const member of members) {
    const first = samples.filter((s) => s.member === member && inFirst(s));
    const last = samples.filter((s) => s.member === member && inLast(s));
    const lives = new Set([...first, ...last].map((s) => s.life));
    if (first.length === 0 || last.length === 0 || lives.size !== 1) continue;
    for (const metric of ['heap', 'rss'] as const) {
      const pick = (s: MemberSample): number | null => (metric === 'heap' ? s.heapBytes : s.rssBytes);
      const from = floor(first.map(pick));
      const to = floor(last.map(pick));
      if (from === undefined || to === undefined) continue;
      const boundBytes = metric === 'heap' ? bound.heapBytes : bound.rssBytes;
      const growth = { member, metric, fromBytes: from, toBytes: to, growthBytes: to - from, boundBytes };
      growths.push(growth);
      if (growth.growthBytes > boundBytes) {
        failures.push(
          `${member}'s ${metric} floor grew by ${mib(growth.growthBytes)} MiB (${mib(from)} → ${mib(to)}), more than the bound of ${mib(boundBytes)} MiB`,
        );
      }
    }
  }
  if (growths.length === 0) failures.push('no member lived through both windows: growth not measured');
  return { growths, failures };
}

function mib(bytes: number): string {
  return (bytes / 2 ** 20).toFixed(2);
}

/** A `dead` event: `observer` declared `member` dead. */
export interface DeathSeen {
  readonly observer: string;
  readonly member: string;
  readonly atMs: number;
}

/** A death no fault explains. */
export interface FalseDeath extends DeathSeen {
  readonly why: string;
}

/**
 * The deaths declared of a member that no fault of its own explains: one is explained when the member was
 * restarted or paused at most `graceMs` before it (from the fault's start to `graceMs` after its end:
 * the suspicion, its timeout and the gossip of the death take that long, and a stale death can still be
 * in flight until then). A member untouched by any fault must never be declared dead.
 */
export function falseDeaths(
  deaths: readonly DeathSeen[],
  faults: readonly Fault[],
  graceMs: number,
): FalseDeath[] {
  const found: FalseDeath[] = [];
  for (const d of deaths) {
    const own = faults.filter((f) => f.member === d.member);
    if (own.some((f) => d.atMs >= f.startMs && d.atMs <= f.endMs + graceMs)) continue;
    const why =
      own.length === 0
        ? 'never restarted nor paused'
        : `no restart or pause of it within ${graceMs} ms before (its faults: ${own.map((f) => `${f.kind} ${f.startMs}–${f.endMs} ms`).join(', ')})`;
    found.push({ ...d, why });
  }
  return found;
}
