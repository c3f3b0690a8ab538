/**
 * Which of some members answer a ping now: the resolver's check that the view it decides on is
 * complete. SWIM finds the members of a cut's other side one probe at a time, and a member cut off from
 * most of the cluster slows its probing (Lifeguard's awareness) by up to 9×: its view can stop changing
 * while members it cannot reach are still held alive in it, and a minority would then count itself a
 * majority. Asking every member held alive at once closes that gap in a few probe timeouts.
 */

/** Pings one member: `done(true)` on its ack, `done(false)` when none came in time. Must call `done` once. */
export type ReachProbe = (name: string, done: (acked: boolean) => void) => void;

/** A check in flight. */
export interface ReachCheck {
  /**
   * Counts `name` as not answering without waiting for its probes: the source holds it unreachable
   * already (a member that exited, found by the death watch), and the check should not wait out its
   * attempts for that. A name already answered, or not asked, is left as it is.
   */
  forget(name: string): void;
}

/**
 * Pings each of `names` up to `attemptsOf(name)` times, one attempt after the other failed, all members at once;
 * `done` gets those that answered, once every member has answered, used its attempts or been forgotten.
 * Retrying keeps a lost datagram from making a member of this side look cut off: at 20 % loss each way,
 * a ping and its ack both arrive 64 % of the time, and its ping-reqs fail in about a fifth of the rest.
 */
export function checkReach(
  names: readonly string[],
  probe: ReachProbe,
  attemptsOf: (name: string) => number,
  done: (reached: ReadonlySet<string>) => void,
): ReachCheck {
  const reached = new Set<string>();
  const open = new Set(names);
  const settle = (name: string, acked: boolean): void => {
    if (!open.delete(name)) return;
    if (acked) reached.add(name);
    if (open.size === 0) done(reached);
  };
  const attempt = (name: string, left: number): void => {
    let answered = false;
    probe(name, (acked) => {
      // A probe that answers twice, or a member forgotten meanwhile, must not count again.
      if (answered || !open.has(name)) return;
      answered = true;
      if (acked || left <= 1) settle(name, acked);
      else attempt(name, left - 1);
    });
  };
  if (open.size === 0) done(reached);
  else for (const name of names) attempt(name, attemptsOf(name));
  return { forget: (name) => settle(name, false) };
}
