/**
 * Lifeguard's dynamic suspicion timeout (Dadgar, Phillips and Currey, "Lifeguard: Local health awareness
 * for more accurate failure detection", 2018, section IV-B; memberlist's `suspicion.go`). A suspicion
 * starts with the maximum timeout and shrinks towards the minimum as independent members confirm it:
 *
 *   timeout(c) = max(min, max − (max − min) · log(c + 1) / log(k + 1))
 *
 * where c is the number of confirmations so far and k the number expected. A lone, possibly
 * unhealthy accuser thus waits long enough for the suspect to refute, while a suspicion that many
 * members share completes quickly.
 *
 * fdkit adds kernel evidence: when two members each had a TCP connection to the suspect's port refused,
 * its process is gone while its host is up, which neither a paused nor a cut-off member ever shows. The
 * suspicion then ends one grace period (a probe timeout, long enough for a live suspect to hear of it
 * and refute) after the second refusal, whatever the count of plain confirmations.
 *
 * And the silence of a host: when this member's own probe failed, the suspect's host accepted no
 * connection and sent nothing (`hostSilenceMs` in the configuration), the suspicion ends `hostSilenceMs`
 * after that evidence, unless the host is heard from first; then Lifeguard's timeout applies again.
 */
import type { Clock, Timer } from '../runtime/clock.js';

/** Independent refusals after which a suspicion ends after its grace period. */
export const REFUSALS_TO_CONVICT = 2;

/** The timeout after `confirmations` of `expected` confirmations, floored to a whole millisecond. */
export function suspicionTimeoutMs(
  confirmations: number,
  expected: number,
  minMs: number,
  maxMs: number,
): number {
  if (expected < 1) return minMs;
  const fraction = Math.log(confirmations + 1) / Math.log(expected + 1);
  return Math.max(minMs, Math.floor(maxMs - fraction * (maxMs - minMs)));
}

/**
 * A running suspicion of one member: its timer and the members that confirmed it.
 *
 * The timer first wakes at the minimum timeout, the earliest the suspicion can possibly end, and then at
 * the deadline the confirmations so far give. Confirmations that arrive before the first wake-up (most of
 * them) thus cost no timer at all; only a later one that brings the deadline forward re-arms it.
 */
export class Suspicion {
  /** Members that raised or confirmed the suspicion, the first accuser included (at most k + 1). */
  readonly accusers: string[];
  /** Members whose connection to the suspect's port was refused. */
  readonly refusedBy: string[] = [];
  /** Whether this member has tried a connection of its own for this suspicion. */
  connectTried = false;
  /** When this member last pinged the suspect itself (as a probe target), from the suspicion's start. */
  probedAtMs: number;
  private refusedDeadlineMs = Number.POSITIVE_INFINITY;
  private silentDeadlineMs = Number.POSITIVE_INFINITY;
  private silenceSeen = false;
  private confirmationCount = 0;
  private cancelled = false;
  private timer: Timer;
  private timerDueMs: number;
  private readonly startMs: number;

  /**
   * @param accuser - the member that raised the suspicion; it does not count as a confirmation
   * @param expected - confirmations after which the timeout reaches its minimum (k)
   * @param onTimeout - runs once, when the timeout expires without the suspicion being cancelled, with
   *   the time it was due (a frozen member's timers fire late; see the freeze guard in docs/membership.md)
   */
  constructor(
    readonly accuser: string,
    private readonly expected: number,
    private readonly minMs: number,
    private readonly maxMs: number,
    private readonly clock: Clock,
    private readonly onTimeout: (dueMs: number) => void,
  ) {
    this.accusers = [accuser];
    this.startMs = clock.now();
    this.probedAtMs = this.startMs;
    this.timerDueMs = this.startMs + minMs;
    this.timer = clock.setTimer(minMs, () => this.wake());
  }

  /** Confirmations received from members other than the first accuser. */
  get confirmations(): number {
    return this.confirmationCount;
  }

  /** The timeout, measured from the start of the suspicion, given the confirmations so far. */
  currentTimeoutMs(): number {
    return suspicionTimeoutMs(this.confirmationCount, this.expected, this.minMs, this.maxMs);
  }

  /**
   * Records that `from` suspects the member too. Returns true when it is a new, counted confirmation
   * (which is then worth gossiping on); the timer is shortened accordingly.
   */
  confirm(from: string): boolean {
    if (this.cancelled || this.confirmationCount >= this.expected || this.accusers.includes(from))
      return false;
    this.accusers.push(from);
    this.confirmationCount++;
    const deadline = this.deadline();
    if (deadline < this.timerDueMs) this.arm(deadline);
    return true;
  }

  /**
   * Records that `from` had a connection to the suspect refused. Returns true when it is new (worth
   * gossiping on); the second one sets the deadline to `graceMs` from now, if that is earlier.
   */
  witnessRefusal(from: string, graceMs: number): boolean {
    if (this.cancelled || this.refusedBy.includes(from)) return false;
    this.refusedBy.push(from);
    if (this.refusedBy.length >= REFUSALS_TO_CONVICT) {
      this.refusedDeadlineMs = Math.min(this.refusedDeadlineMs, this.clock.now() + graceMs);
      if (this.refusedDeadlineMs < this.timerDueMs) this.arm(this.refusedDeadlineMs);
    }
    return true;
  }

  /**
   * This member's own probe found the suspect's host silent: the suspicion ends at `deadlineMs`, if that
   * is earlier, unless {@link Suspicion.hostHeard} is called first.
   */
  hostSilent(deadlineMs: number): void {
    if (this.cancelled) return;
    this.silenceSeen = true;
    this.silentDeadlineMs = Math.min(this.silentDeadlineMs, deadlineMs);
    if (this.silentDeadlineMs < this.timerDueMs) this.arm(this.silentDeadlineMs);
  }

  /** Whether the host's silence is what ends the suspicion, now that it is due. */
  get endsBySilence(): boolean {
    return this.silentDeadlineMs < Math.min(this.startMs + this.currentTimeoutMs(), this.refusedDeadlineMs);
  }

  /**
   * The suspect's host answered (a connection accepted, a message from it), or this member's evidence
   * no longer counts: the silence no longer ends the suspicion. The timer is set again, also when it
   * has already run out on the silence and its owner chose not to conclude.
   */
  hostHeard(): void {
    this.silenceSeen = false;
    this.silenceDoubted();
  }

  /**
   * The silence is not to end the suspicion (other hosts went silent too: a partition is likelier), but
   * the host was not heard from either: {@link Suspicion.wentSilent} stays true.
   */
  silenceDoubted(): void {
    if (this.cancelled || this.silentDeadlineMs === Number.POSITIVE_INFINITY) return;
    this.silentDeadlineMs = Number.POSITIVE_INFINITY;
    this.arm(this.deadline());
  }

  /** Whether this member found the host silent and has not heard from it since. */
  get wentSilent(): boolean {
    return this.silenceSeen;
  }

  /** Whether the suspicion would end on the host's silence (until it is heard from). */
  get isSilent(): boolean {
    return this.silentDeadlineMs !== Number.POSITIVE_INFINITY;
  }

  /** When the suspicion ends, given the confirmations, refusals and silence so far. */
  deadline(): number {
    return Math.min(this.startMs + this.currentTimeoutMs(), this.refusedDeadlineMs, this.silentDeadlineMs);
  }

  private wake(): void {
    const deadline = this.deadline();
    if (this.clock.now() >= deadline) this.onTimeout(this.timerDueMs);
    else this.arm(deadline);
  }

  private arm(deadline: number): void {
    this.timer.cancel();
    // A confirmation can move the deadline into the past: the timer is then due now, not late (a late
    // timer is read as this member's own stall, by Lifeguard's score, the freeze guard and the busy signal).
    this.timerDueMs = Math.max(deadline, this.clock.now());
    this.timer = this.clock.setTimer(Math.max(0, deadline - this.clock.now()), () => this.wake());
  }

  /** Stops the timer: the member refuted the suspicion, or was declared dead otherwise. */
  cancel(): void {
    this.cancelled = true;
    this.timer.cancel();
  }
}
