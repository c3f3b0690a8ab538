/**
 * The earliest moments SWIM with Lifeguard lets a member convict, from the configuration's formulas as
 * memberlist defines them (`suspicionTimeout` in util.go, `newSuspicion` in suspicion.go), written here
 * rather than imported from `src/swim/timing.ts` or `src/swim/suspicion.ts`, so that a timing check's
 * lower bound does not move with the code it checks:
 * - a probe escalates only once its own timeout (`probeTimeoutMs`) passed without an ack;
 * - a suspicion then runs at least the minimum suspicion timeout,
 *   suspicionMult × max(1, log10 n) × probeIntervalMs (the scale kept to three decimals, as memberlist
 *   does), however many members confirm it;
 * - with c of k expected confirmations (k = suspicionMult − 2, or 0 when the cluster has fewer than k
 *   other members to give them), it runs max(min, max − (max − min) · log(c + 1) / log(k + 1)), where
 *   max = suspicionMaxTimeoutMult × min;
 * - a member killed on a live host (its port refuses connections) is convicted after a grace of one
 *   probe timeout from the second refusal, not after the suspicion timeout: the kill/crash distinction.
 */

/** The configuration fields the bounds depend on. */
export interface LifeguardConfig {
  readonly probeIntervalMs: number;
  readonly probeTimeoutMs: number;
  readonly suspicionMult: number;
  readonly suspicionMaxTimeoutMult: number;
}

/** The minimum suspicion timeout at `n` members. */
export function minSuspicionMs(c: LifeguardConfig, n: number): number {
  const scale = Math.max(1, Math.log10(Math.max(1, n)));
  return (c.suspicionMult * Math.floor(scale * 1000) * c.probeIntervalMs) / 1000;
}

/** The suspicion timeout with no confirmation at `n` members. */
export function maxSuspicionMs(c: LifeguardConfig, n: number): number {
  return c.suspicionMaxTimeoutMult * minSuspicionMs(c, n);
}

/** Confirmations after which a suspicion runs only the minimum, at `n` members. */
export function expectedConfirmations(c: LifeguardConfig, n: number): number {
  const k = c.suspicionMult - 2;
  return n - 2 < k ? 0 : k;
}

/** Lifeguard's suspicion timeout after `confirmations`, at `n` members, to the whole millisecond below. */
export function suspicionTimeoutAfter(c: LifeguardConfig, n: number, confirmations: number): number {
  const min = minSuspicionMs(c, n);
  const max = maxSuspicionMs(c, n);
  const k = expectedConfirmations(c, n);
  if (k === 0) return min;
  const shrunk = max - ((max - min) * Math.log(confirmations + 1)) / Math.log(k + 1);
  return Math.max(min, Math.floor(shrunk));
}

/**
 * The earliest a member that fell silent at `silentFromMs` (crashed, paused or cut off: nothing refuses a
 * connection) can be held dead anywhere: a probe sent at or after `silentFromMs − slackMs` (the last
 * moment an answer could still have been lost) times out, then its suspicion runs the minimum.
 */
export function earliestSilentDeathMs(
  c: LifeguardConfig,
  n: number,
  silentFromMs: number,
  slackMs: number,
): number {
  return silentFromMs - slackMs + c.probeTimeoutMs + minSuspicionMs(c, n);
}
