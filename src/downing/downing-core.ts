/**
 * The split-brain resolver's core: what one member decides when a cut leaves some members unreachable.
 * It waits until its view has been stable (no member reachable that was not, or the reverse) for
 * `stableAfterMs`, so that both sides decide on settled views; then its strategy (`strategy.ts`) says
 * whether this side downs the members it cannot reach or downs itself. A view that never settles
 * (flapping links, a cluster churning through a cut) downs every member once it has been unstable for
 * `stableAfterMs + downAllWhenUnstableMs`, as Pekko's down-all-when-unstable does: no decision is
 * safer than a wrong one, and a whole cluster restarted is better than two clusters.
 *
 * Sans-I/O: the view arrives as calls, time through the injected {@link Clock}, the lease (for
 * lease-majority) as a port, and decisions leave through a callback.
 */
import type { Clock, Timer } from '../runtime/clock.js';
import type { DowningDecision, DowningLease, DowningStrategy } from './downing-types.js';
import { checkReach, type ReachCheck, type ReachProbe } from './reach-check.js';
import {
  type Decision,
  type DowningStrategyName,
  downAll,
  isMajority,
  keepMajority,
  keepOldest,
  type SideMember,
  type Sides,
  staticQuorum,
} from './strategy.js';

/** The core's settings, resolved. */
export interface DowningCoreSettings {
  readonly self: SideMember;
  readonly strategy: DowningStrategy;
  readonly stableAfterMs: number;
  /** Extra time an unsettled view is given before every member is downed; `undefined` never downs all. */
  readonly downAllWhenUnstableMs: number | undefined;
  /**
   * Asks a member whether it answers now (a SWIM probe). With it, the view is checked when a member
   * counted reachable is first held unreachable, and again before each decision (`reach-check.ts`).
   * Without it (a heartbeat monitor, which hears from every peer all the time) the view is taken as is.
   */
  readonly reach?: ReachProbe | undefined;
}

interface Tracked {
  age: number;
  /** Alive in the source's view. */
  reachable: boolean;
  /** Held alive, but did not answer the last check. */
  unanswered: boolean;
  /** Times it came back reachable since the view was last settled. */
  returns: number;
}

/** A member that came back this often within one unstable spell is seen by some and not by others. */
const INDIRECT_RETURNS = 2;
/**
 * Probes per member in a check when it was counted reachable: two, so that a lost datagram (with its
 * indirect paths) does not cut a member of this side off. One for a member that did not answer the last
 * check: it is asked again only in case it was a loss, and a member cut off takes a whole probe each time.
 */
const ATTEMPTS_REACHABLE = 2;
const ATTEMPTS_UNANSWERED = 1;

/** The split-brain resolver of one member. */
export class DowningCore {
  private readonly members = new Map<string, Tracked>();
  private decisionTimer: Timer | undefined;
  private unstableTimer: Timer | undefined;
  private unstableSince: number | undefined;
  private leasePending = false;
  private done = false;
  /** Raised at each change of the view: a check's answer decides only if nothing changed meanwhile. */
  private generation = 0;
  private checking = false;
  /** The check in flight, told of members the source holds unreachable meanwhile. */
  private inFlight: ReachCheck | undefined;
  /** What to do once the check in flight answers: check again, and decide. */
  private recheck = false;
  private decideAfterCheck = false;

  constructor(
    private readonly settings: DowningCoreSettings,
    private readonly clock: Clock,
    private readonly onDecision: (decision: DowningDecision) => void,
  ) {
    this.members.set(settings.self.name, {
      age: settings.self.age,
      reachable: true,
      unanswered: false,
      returns: 0,
    });
  }

  /** True once this member downed itself: it decides nothing more. */
  get downedSelf(): boolean {
    return this.done;
  }

  /** Members counted now, as this side sees them. */
  sides(): Sides {
    const reachable: SideMember[] = [];
    const unreachable: SideMember[] = [];
    for (const [name, m] of this.members) {
      (this.counted(name, m) ? reachable : unreachable).push({ name, age: m.age });
    }
    return { reachable, unreachable };
  }

  /** Whether `m` counts on this side: held alive, answering, and not indirectly connected. */
  private counted(name: string, m: Tracked): boolean {
    if (name === this.settings.self.name) return true;
    // A member seen by some and not by others is downed with the unreachable, as Akka downs it.
    return m.reachable && !m.unanswered && m.returns < INDIRECT_RETURNS;
  }

  /**
   * A member's state in this member's view. `alive` adds it (a new life of a downed member too),
   * `suspect` and `dead` make it unreachable, `left` removes it: a graceful leave is no failure. `age`
   * is read when the member is added, and kept: both sides must order it the same.
   */
  observe(name: string, state: 'alive' | 'suspect' | 'dead' | 'left', age: number): void {
    if (this.done || name === this.settings.self.name) return;
    const m = this.members.get(name);
    if (state === 'left') {
      if (m !== undefined) {
        const before = this.sides();
        this.members.delete(name);
        this.changed(this.stillGoesDown(before));
      }
      return;
    }
    const reachable = state === 'alive';
    if (m === undefined) {
      // A member first heard of as suspect or dead was never part of this side's cluster.
      if (!reachable) return;
      this.members.set(name, { age, reachable, unanswered: false, returns: 0 });
      this.changed();
      return;
    }
    if (m.reachable === reachable) return;
    this.flip(name, m, reachable);
    // Held unreachable now: a check in flight need not wait out its probes of it. Last, since the check
    // may end (and decide) at once.
    if (!reachable) this.inFlight?.forget(name);
  }

  private flip(name: string, m: Tracked, reachable: boolean): void {
    const before = this.counted(name, m);
    // Only a member of this side lost can leave the verdict as it was: see `stillGoesDown`.
    const sidesBefore = before && !reachable ? this.sides() : undefined;
    m.reachable = reachable;
    // Held alive again (a refutation, a new life): fresher than the check it did not answer.
    if (reachable) m.unanswered = false;
    // Its flips no longer count as changes once it is held indirectly connected: the view can settle
    // with it on the unreachable side, where the side that stays downs it.
    if (m.returns >= INDIRECT_RETURNS) return;
    if (reachable) m.returns += 1;
    if (this.counted(name, m) === before) return;
    this.changed(sidesBefore !== undefined && this.stillGoesDown(sidesBefore));
    // SWIM finds the rest of a cut one probe at a time, slowed by up to 9× on a side cut off from most:
    // ask every member held alive now instead.
    if (before) this.check(false);
  }

  /** Stops the timers; nothing is decided after. */
  stop(): void {
    this.done = true;
    this.decisionTimer?.cancel();
    this.unstableTimer?.cancel();
  }

  private hasUnreachable(): boolean {
    return this.sides().unreachable.length > 0;
  }

  /**
   * Whether this side, which would go down on the view `before`, still would on the view now. A side
   * that goes down (a minority, below the quorum, without the oldest; for lease-majority, a minority that
   * asks the lease late) only goes down the more as it loses members, so the change need not restart
   * the wait: the partner of a minority member that went down first is not held back by its exit.
   */
  private stillGoesDown(before: Sides): boolean {
    // Only once a cut is seen: a healthy view's verdict means nothing (down-all's is always to go down).
    return before.unreachable.length > 0 && this.goesDown(before) && this.goesDown(this.sides());
  }

  private goesDown(sides: Sides): boolean {
    const strategy = this.settings.strategy;
    if (strategy.name === 'lease-majority') return !isMajority(sides);
    return this.rule(strategy, sides).kind === 'down-self';
  }

  /**
   * The view changed at `sinceMs` (now by default); with `keepWait`, a wait already running (or
   * deciding) goes on as it was.
   */
  private changed(keepWait = false, sinceMs = this.clock.now()): void {
    if (!(keepWait && (this.decisionTimer !== undefined || this.decideAfterCheck))) this.restartWait(sinceMs);
    this.startSpell();
  }

  private restartWait(sinceMs: number): void {
    this.generation++;
    // The wait starts again: the timer decides, not a check that was asked before the change.
    this.decideAfterCheck = false;
    this.decisionTimer?.cancel();
    const waitMs = Math.max(0, this.settings.stableAfterMs - (this.clock.now() - sinceMs));
    this.decisionTimer = this.clock.setTimer(waitMs, () => this.decide());
  }

  private startSpell(): void {
    if (this.unstableSince === undefined && this.hasUnreachable()) {
      this.unstableSince = this.clock.now();
      const extra = this.settings.downAllWhenUnstableMs;
      if (extra !== undefined) {
        this.unstableTimer = this.clock.setTimer(this.settings.stableAfterMs + extra, () => this.unstable());
      }
    }
  }

  /** Stable with everyone reachable, or the unreachable downed: the unstable spell is over. */
  private settle(): void {
    this.unstableSince = undefined;
    this.unstableTimer?.cancel();
    this.unstableTimer = undefined;
    for (const m of this.members.values()) m.returns = 0;
  }

  private unstable(): void {
    // A side racing for the lease decided on a settled view already; the lease answers (or, for a
    // lease that never does, nothing more is decided).
    if (this.done || this.unstableSince === undefined || this.leasePending) return;
    const sides = this.sides();
    // Churn with everyone reachable is no split: nothing to resolve, and no reason to down anyone.
    if (sides.unreachable.length === 0) {
      this.settle();
      return;
    }
    this.downSelf(
      'unstable',
      `the view did not settle for ${this.clock.now() - this.unstableSince} ms`,
      sides,
    );
  }

  private decide(): void {
    this.decisionTimer = undefined;
    if (this.done || this.leasePending) return;
    if (!this.hasUnreachable()) {
      this.settle();
      return;
    }
    // The view stopped changing; whether it is complete, only the members can say.
    this.check(true);
  }

  /**
   * Asks every member held alive whether it answers; a member counted that no longer does is a change of
   * the view (the wait starts again). With `thenDecide`, decides once the answers lost nobody and the
   * view did not change meanwhile.
   */
  private check(thenDecide: boolean): void {
    const reach = this.settings.reach;
    if (reach === undefined) {
      if (thenDecide) this.decideNow();
      return;
    }
    this.decideAfterCheck ||= thenDecide;
    if (this.checking) {
      this.recheck = true;
      return;
    }
    this.checking = true;
    const generation = this.generation;
    const startedMs = this.clock.now();
    // The members counted first, then those that did not answer the last check: the order probes leave in.
    const asked: string[] = [];
    const again: string[] = [];
    for (const [name, m] of this.members) {
      if (name !== this.settings.self.name && m.reachable) (m.unanswered ? again : asked).push(name);
    }
    asked.push(...again);
    const attemptsOf = (name: string): number =>
      this.members.get(name)?.unanswered === true ? ATTEMPTS_UNANSWERED : ATTEMPTS_REACHABLE;
    const check = checkReach(asked, reach, attemptsOf, (reached) =>
      this.checked(asked, reached, generation, startedMs),
    );
    // A check that ended at once (probes that answer synchronously) is no longer in flight; one that
    // ended and started the next has stored that one.
    if (this.checking && this.inFlight === undefined) this.inFlight = check;
  }

  private checked(
    names: readonly string[],
    reached: ReadonlySet<string>,
    generation: number,
    startedMs: number,
  ): void {
    this.checking = false;
    this.inFlight = undefined;
    if (this.done) return;
    const sidesBefore = this.sides();
    let lost = false;
    for (const name of names) {
      const m = this.members.get(name);
      // Gone, or held unreachable by the source meanwhile: the source's word is the newer.
      if (m === undefined || !m.reachable) continue;
      const before = this.counted(name, m);
      m.unanswered = !reached.has(name);
      // A member that answers now after a silent check was this side's all along (a lost datagram made
      // it look cut off): counting it again corrects this member's measure, and the other side's view
      // did not change with it, so it does not start the wait again. One that no longer answers does.
      if (before && !this.counted(name, m)) lost = true;
    }
    // A side that goes down and lost more members goes down the more: its wait goes on (and it decides).
    // The members it found silent were so when it was asked: the wait runs from then, not from the
    // answers, which take a few probe timeouts to come.
    if (lost) this.changed(this.stillGoesDown(sidesBefore), startedMs);
    const decide = this.decideAfterCheck && generation === this.generation && !this.leasePending;
    // A check asked meanwhile is for members lost since: on a side that goes down it could only confirm it.
    if (this.recheck && !(decide && this.goesDown(this.sides()))) {
      this.recheck = false;
      this.check(false);
      return;
    }
    this.recheck = false;
    this.decideAfterCheck = false;
    if (decide) this.decideNow();
  }

  private decideNow(): void {
    if (this.done) return;
    const sides = this.sides();
    if (sides.unreachable.length === 0) {
      this.settle();
      return;
    }
    const strategy = this.settings.strategy;
    if (strategy.name === 'lease-majority') {
      this.raceForLease(strategy.lease, strategy.acquireLeaseDelayForMinorityMs, sides);
      return;
    }
    this.apply(strategy.name, this.rule(strategy, sides), sides);
  }

  private rule(strategy: Exclude<DowningStrategy, { name: 'lease-majority' }>, sides: Sides): Decision {
    switch (strategy.name) {
      case 'keep-majority':
        return keepMajority(sides);
      case 'static-quorum':
        return staticQuorum(sides, strategy.quorumSize);
      case 'keep-oldest':
        return keepOldest(sides, strategy.downIfAlone ?? false);
      case 'down-all':
        return downAll(sides);
    }
  }

  private raceForLease(lease: DowningLease, delayMs: number | undefined, sides: Sides): void {
    this.leasePending = true;
    const majority = isMajority(sides);
    // The side's name: its members see the same side, so they all ask for the same owner.
    let owner = this.settings.self.name;
    for (const m of sides.reachable) if (m.name < owner) owner = m.name;
    const attempt = (): void => {
      if (this.done) return;
      let asked: PromiseLike<boolean>;
      try {
        asked = lease.acquire(owner);
      } catch {
        this.leaseAnswered(false, majority);
        return;
      }
      asked.then(
        (held) => this.leaseAnswered(held === true, majority),
        () => this.leaseAnswered(false, majority),
      );
    };
    // The majority goes first; the minority only once it would have lost the race to a live majority.
    if (majority) attempt();
    else this.clock.setTimer(delayMs ?? this.settings.stableAfterMs, attempt);
  }

  private leaseAnswered(held: boolean, majority: boolean): void {
    this.leasePending = false;
    if (this.done) return;
    const sides = this.sides();
    // Healed while racing: there is nothing left to resolve.
    if (sides.unreachable.length === 0) return;
    const side = majority ? 'the majority' : 'the minority';
    this.apply(
      'lease-majority',
      held
        ? { kind: 'down-unreachable', reason: `${side} holds the lease` }
        : { kind: 'down-self', reason: `${side} did not get the lease` },
      sides,
    );
  }

  private apply(strategy: DowningStrategyName, decision: Decision, sides: Sides): void {
    if (decision.kind === 'down-self') {
      this.downSelf(strategy, decision.reason, sides);
      return;
    }
    const members = sides.unreachable.map((m) => m.name);
    for (const name of members) this.members.delete(name);
    this.settle();
    this.onDecision({ kind: 'down', members, strategy, reason: decision.reason, atMs: this.clock.now() });
  }

  private downSelf(strategy: DowningStrategyName | 'unstable', reason: string, sides: Sides): void {
    this.stop();
    this.onDecision({
      kind: 'downed-self',
      strategy,
      reason,
      atMs: this.clock.now(),
      reachable: sides.reachable.map((m) => m.name),
      unreachable: sides.unreachable.map((m) => m.name),
    });
  }
}
