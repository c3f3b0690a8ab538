/**
 * When each phase of `fdkit demo` is over, as predicates over the demo's {@link ClusterView}: the
 * cluster has formed, every survivor holds the killed member dead, the survivors are healthy again, the
 * paused member is back. Pure, so that the orchestration only waits on them.
 */
import type { ClusterView } from './cluster-view.js';

/** Members whose process runs (not stopped, killed or ended), other than `except`. */
export function running(view: ClusterView, except?: string): string[] {
  return view.names.filter((n) => n !== except && view.member(n).process === 'running');
}

/** Every member runs and holds every other alive. */
export function formed(view: ClusterView): boolean {
  const names = view.names;
  return (
    running(view).length === names.length &&
    names.every((o) => names.every((m) => o === m || view.knowledge(o, m)?.state === 'alive'))
  );
}

/** How each member holds the others, for a failure message: `n1: n2 alive, n3 ?`. */
export function describeViews(view: ClusterView): string[] {
  return view.names.map((o) => {
    const seen = view.names
      .filter((m) => m !== o)
      .map((m) => `${m} ${view.knowledge(o, m)?.state ?? '?'}`)
      .join(', ');
    return `${o} (${view.member(o).process}): ${seen}`;
  });
}

/**
 * The leader every running member's hint names, when they all name the same running member; undefined
 * while they disagree, or follow a member whose process is not running.
 */
export function agreedLeader(view: ClusterView): string | undefined {
  const leaders = new Set(running(view).map((n) => view.member(n).leader));
  const [leader] = leaders;
  return leaders.size === 1 && leader !== undefined && view.member(leader).process === 'running'
    ? leader
    : undefined;
}

/** Every running member other than `member` holds it dead. */
export function heldDead(view: ClusterView, member: string): boolean {
  return running(view, member).every((o) => view.knowledge(o, member)?.state === 'dead');
}

/** Some running member other than `member` suspects it. */
export function suspected(view: ClusterView, member: string): boolean {
  return running(view, member).some((o) => view.knowledge(o, member)?.state === 'suspect');
}

/** Every running member reported a local health of 0 in its latest status. */
export function healthy(view: ClusterView): boolean {
  return running(view).every((n) => view.member(n).status?.localHealth === 0);
}

/**
 * `member` is back after a pause: every other running member holds it alive at the highest incarnation
 * any of them knows (so every suspicion of it was refuted), and it reported a status received after
 * `resumedAtMs` in which it holds all of them alive.
 */
export function backFromPause(view: ClusterView, member: string, resumedAtMs: number): boolean {
  const observers = running(view, member);
  const status = view.member(member).status;
  if (
    view.member(member).process !== 'running' ||
    status === undefined ||
    status.receivedAtMs < resumedAtMs
  ) {
    return false;
  }
  const held = observers.map((o) => view.knowledge(o, member));
  const top = Math.max(0, ...held.map((k) => k?.incarnation ?? 0));
  return (
    held.every((k) => k?.state === 'alive' && k.incarnation >= top) &&
    observers.every((o) => view.knowledge(member, o)?.state === 'alive')
  );
}
