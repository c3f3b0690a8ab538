/**
 * The opt-in per-member series: phi of the members held alive or suspect, the highest first, at most
 * as many as asked for. Dead and left members are left out: the phi of a silence that has been
 * explained only grows, and would crowd out the members that are worth watching.
 */
import type { LabelledValues } from './metric-factory.js';

/** A member as the per-member series read it. */
export interface PhiReading {
  readonly name: string;
  readonly state: string;
  readonly phi: number;
}

/** `member → phi` for at most `limit` of the alive and suspect `members`, the highest phi first. */
export function highestPhi(members: readonly PhiReading[], limit: number): LabelledValues {
  const watched = members.filter((m) => m.state === 'alive' || m.state === 'suspect');
  watched.sort((a, b) => b.phi - a.phi || (a.name < b.name ? -1 : 1));
  const out: Record<string, number> = {};
  for (const m of watched.slice(0, Math.min(limit, watched.length))) out[m.name] = m.phi;
  return out;
}

/** How many members are in each of `states`, every state present (0 when none is). */
export function countByState(
  members: readonly { readonly state: string }[],
  states: readonly string[],
): LabelledValues {
  const out: Record<string, number> = {};
  for (const state of states) out[state] = 0;
  for (const m of members) out[m.state] = (out[m.state] ?? 0) + 1;
  return out;
}
