/**
 * Which of some members answer a ping now: the resolver's check that the view it decides on is
 * complete. SWIM finds the members of a cut's other side one probe at a time, and a member cut off from
 * most of the cluster slows its probing (Lifeguard's awareness) by up to 9×: its view can stop changing
 * while members it cannot reach are still held alive in it, and a minority would then count itself a
 * majority. Asking every member held alive at once closes that gap in a few probe timeouts.
 */

/** Pings one member: `done(true)` on its ack, `done(false)` when none came in time. Must call `done` once. */
export type ReachProbe = (name: string, done: (acked: boolean) => void) => void;

/**
 * Pings each of `names` up to `attempts` times, one attempt after the other failed, all members at once;
 * `done` gets those that answered, once every member has answered or used its attempts. Retrying keeps
 * a lost datagram from making a member of this side look cut off: at 20 % loss each way, a ping and its
 * ack both arrive 64 % of the time, and three attempts all fail for 5 % of members.
 */
export function checkReach(
  names: readonly string[],
  probe: ReachProbe,
  attempts: number,
  done: (reached: ReadonlySet<string>) => void,
): void {
  const reached = new Set<string>();
  let open = names.length;
  if (open === 0) {
    done(reached);
    return;
  }
  const settle = (): void => {
    open--;
    if (open === 0) done(reached);
  };
  const attempt = (name: string, left: number): void => {
    let answered = false;
    probe(name, (acked) => {
      // A probe that answers twice must not count a member twice.
      if (answered) return;
      answered = true;
      if (acked) {
        reached.add(name);
        settle();
      } else if (left > 1) attempt(name, left - 1);
      else settle();
    });
  };
  for (const name of names) attempt(name, attempts);
}
