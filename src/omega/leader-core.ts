/**
 * Ω, the eventual leader detector of Chandra, Hadzilacos and Toueg ("The Weakest Failure Detector for
 * Solving Consensus", JACM 1996): each member outputs one member it trusts, and once failures stop and
 * suspicions become accurate, every live member outputs the same live one. It is built as in their
 * reduction from an eventually accurate suspicion list: the leader is the best-ranked member that is not
 * suspected. Stability follows Aguilera, Delporte-Gallet, Fauconnier and Toueg ("Stable Leader Election",
 * DISC 2001): a leader that stays reachable is not demoted just because a better-ranked member came
 * back; here the comeback must have lasted `stableForMs` first.
 *
 * The rules, for one member's view:
 * - a member is eligible while its state is alive (suspected, dead and left members are not); the local
 *   member always is;
 * - it is stable once eligible for `stableForMs`; a member first heard of (cause `joined`), the members
 *   known at start and the local member are stable at once: only a comeback, which may be a flap, waits;
 * - the local member comes back too when it learns that others held it suspect, dead or left (its SWIM
 *   node refuted them: after a pause, or a restart under the same name that the cluster remembers). It
 *   then waits as the others wait for it, a tenth longer (`SELF_MARGIN`), and meanwhile names
 *   the best stable member other than itself, or itself when there is none;
 * - when the leader becomes ineligible, the lead moves at once to the best stable member;
 * - a stable member ranked better than the leader takes the lead (when its wait ends, or its rank rises).
 * Once every view holds the same members eligible for `stableForMs`, every view names the best of them.
 *
 * Sans-I/O: time and timers come from the injected {@link Clock}, events arrive as calls, and changes
 * leave through a callback. It is a hint for liveness, never a lock: two members may name different
 * leaders at the same moment.
 */

import type { MemberEvent } from '../membership/events.js';
import type { MemberStateName } from '../membership/member-state.js';
import type { Clock, Timer } from '../runtime/clock.js';
import {
  type LeaderCoreOptions,
  type RankFunction,
  type ResolvedLeaderOptions,
  resolveLeaderOptions,
} from './leader-options.js';
import { priorityFromMeta } from './priority.js';

/** Why the leader changed. */
export type LeaderChangeCause =
  /** The leader was suspected: the lead moved at once. */
  | 'leader-suspect'
  /** The leader was declared dead. */
  | 'leader-dead'
  /** The leader left the cluster. */
  | 'leader-left'
  /** A better-ranked member came back and stayed eligible for `stableForMs`. */
  | 'stable-better'
  /** Metadata changed a rank, so that another stable member now ranks first. */
  | 'rank-changed'
  /**
   * The local member learnt that others held it suspect, dead or left: it yields to the best stable
   * member while they wait out its comeback.
   */
  | 'self-comeback';

/** A change of the leader, as the `'leader'` event of {@link LeaderHint} carries it. */
export interface LeaderChange {
  /** The member now named leader. */
  readonly leader: string;
  /** The member named before. */
  readonly previous: string;
  /** How many times this hint's leader has changed, this change included: local, not agreed by anyone. */
  readonly epoch: number;
  /** Monotonic time of the change in ms. */
  readonly atMs: number;
  /** Wall time of the change, Unix ms. */
  readonly wallMs: number;
  /** Why the lead moved: the leader's failure or leave, or a better-ranked stable member. */
  readonly cause: LeaderChangeCause;
}

/** A member as the hint ranks it, best first in {@link LeaderCore.candidates}. */
export interface LeaderCandidate {
  /** Its member name. */
  readonly name: string;
  /** Its rank from the rank function; higher leads, names break ties, NaN ranks last. */
  readonly rank: number;
  /** Its state in this member's view; only `alive` members are eligible. */
  readonly state: MemberStateName;
  /** Eligible (alive) for at least `stableForMs`, so that it may take the lead. */
  readonly stable: boolean;
}

/** What the hint needs of a member at start: its name, state and (for its rank) metadata. */
export interface KnownMember {
  /** Its member name. */
  readonly name: string;
  /** Its state in the membership view; only `alive` members are eligible at start. */
  readonly state: MemberStateName | 'unknown';
  /** Its metadata, which the rank function reads; absent is the same as empty. */
  readonly meta?: Uint8Array;
}

/** The parts of a {@link MemberEvent} the hint reads. */
export type LeaderInput = Pick<MemberEvent, 'type' | 'member' | 'previous'>;

/** A member and its rank, as a {@link LeaderBaseline} holds it. */
export interface RankedMember {
  /** Its member name; ties of rank go to the lexicographically smaller name. */
  readonly name: string;
  /** What the rank function gave for its name and metadata; higher leads, NaN ranks last. */
  readonly rank: number;
  /** The metadata the rank was read from (empty when the member had none). */
  readonly meta: Uint8Array;
}

/**
 * The members known alive at start, ranked once, best first, and shared read-only by any number of
 * hints: each hint then holds only what changed since (the simulator runs one hint per member, all from
 * the same view, and would otherwise hold n² entries).
 */
export class LeaderBaseline {
  /** Best-ranked first. */
  readonly members: readonly RankedMember[];
  /** The same members by name, for the hints' lookups. */
  readonly byName: ReadonlyMap<string, RankedMember>;

  /**
   * @param alive - members alive at start (their state is not read)
   * @param rank - the rank function of the hints that will share it; default: {@link priorityFromMeta}
   */
  constructor(
    alive: Iterable<{ readonly name: string; readonly meta?: Uint8Array }>,
    rank: RankFunction = defaultRank,
  ) {
    const members = [...alive].map((m) => {
      const meta = m.meta ?? EMPTY;
      return { name: m.name, rank: rankOf(rank, m.name, meta), meta };
    });
    members.sort((a, b) => (better(a, b) ? -1 : better(b, a) ? 1 : 0));
    this.members = members;
    this.byName = new Map(members.map((m) => [m.name, m]));
  }
}

/** A member this hint holds on its own: the local one, and any whose state changed since the start. */
interface Entry extends RankedMember {
  rank: number;
  meta: Uint8Array;
  state: MemberStateName;
  /**
   * Pending while a comeback waits out `stableForMs`. Stable means alive with no wait pending, or one
   * due by now: the timer's own due time decides, as `now - since >= stableForMs` would not (floating
   * point may leave it a hair short when the timer fires).
   */
  timer: Timer | undefined;
  /** When the pending wait ends. */
  stableAtMs: number;
}

const KNOWN_OPTIONS = ['self', 'stableForMs', 'rank'] as const;

/**
 * The local member's own wait is `stableForMs` × this. The others start waiting when its refutation
 * reaches them, a few gossip rounds after it refuted; were its wait no longer than theirs, it would name
 * itself while the member that took over still did. A tenth of the default `stableForMs` is one `lan`
 * probe interval, five gossip rounds: more than a refutation takes to spread in the clusters measured.
 */
const SELF_MARGIN = 1.1;
const EMPTY = new Uint8Array(0);
const defaultRank: RankFunction = (_name, meta) => priorityFromMeta(meta);

/** The sans-I/O leader hint of one member. */
export class LeaderCore {
  /** The local member, members changed since the start, and members first heard of later. */
  private readonly entries = new Map<string, Entry>();
  private readonly baseline: LeaderBaseline;
  private readonly options: ResolvedLeaderOptions;
  private current: RankedMember;
  private changes = 0;
  private stopped = false;

  /**
   * @param options - see {@link LeaderCoreOptions}; validated here
   * @param clock - time for `stableForMs` and the changes' timestamps
   * @param onChange - called synchronously on every change of the leader
   * @param known - the members known at start, in any state (the alive ones are stable at once), or a
   *   {@link LeaderBaseline} of alive members shared with other hints (ranked by the same function)
   */
  constructor(
    options: LeaderCoreOptions,
    private readonly clock: Clock,
    private readonly onChange: (change: LeaderChange) => void,
    known: Iterable<KnownMember> | LeaderBaseline = [],
    owner = 'LeaderCore',
  ) {
    this.options = resolveLeaderOptions(owner, options, KNOWN_OPTIONS);
    const self = this.options.self;
    this.entry(self.name, self.meta);
    if (known instanceof LeaderBaseline) {
      this.baseline = known;
    } else {
      const alive: KnownMember[] = [];
      for (const m of known) {
        if (m.name === self.name || m.state === 'unknown') continue;
        if (m.state === 'alive') alive.push(m);
        else this.entry(m.name, m.meta).state = m.state;
      }
      this.baseline = new LeaderBaseline(alive, this.options.rank);
    }
    this.current = this.bestStable();
  }

  /** The member this hint names leader now: never empty, since the local member is always a candidate. */
  get leader(): string {
    return this.current.name;
  }

  /** How many times the leader has changed since this hint started. */
  get epoch(): number {
    return this.changes;
  }

  /** The name of the local member. */
  get self(): string {
    return this.options.self.name;
  }

  /** The `stableForMs` in force. */
  get stableForMs(): number {
    return this.options.stableForMs;
  }

  /**
   * Takes one membership event of the local member's view. `meta`, when given, is the member's current
   * metadata (for its rank); without it the rank stays as it was. Events about the local member are
   * ignored: it never suspects itself.
   */
  observe(event: LeaderInput, meta?: Uint8Array): void {
    if (this.stopped || event.member === this.options.self.name) return;
    const held = this.entries.get(event.member);
    const base = held === undefined ? this.baseline.byName.get(event.member) : undefined;
    const known = held !== undefined || base !== undefined;
    const e = held ?? this.entry(event.member, base?.meta ?? meta, base?.rank);
    const rankChanged = known && meta !== undefined && this.setMeta(e, meta);
    switch (event.type) {
      case 'alive':
      case 'update':
        // `previous` alive: an update about a member this hint had not heard of, alive all along.
        if (e.state !== 'alive' || !known) this.becameEligible(e, !isComeback(event.previous));
        else if (rankChanged) this.rankChanged(e);
        return;
      case 'suspect':
      case 'dead':
      case 'left':
        this.becameIneligible(e, event.type);
        return;
    }
  }

  /** The local member's metadata changed (its own `updateMetadata`, which emits no event locally). */
  updateSelf(meta: Uint8Array): void {
    if (this.stopped) return;
    const own = this.entries.get(this.options.self.name)!;
    if (this.setMeta(own, meta)) this.rankChanged(own);
  }

  /**
   * The local member learnt that another member held it suspect, dead or left, at its current
   * incarnation or an older life's (a SWIM node's `refuted` event): the members that did so named
   * another leader and now wait `stableForMs` before they name it again. It waits likewise, a tenth
   * longer, naming meanwhile the best stable member other than itself (itself when there is none); each
   * new accusation starts the wait over. Nothing happens with `stableForMs` 0.
   */
  selfRefuted(): void {
    const stableForMs = this.options.stableForMs;
    if (this.stopped || stableForMs === 0) return;
    const own = this.entries.get(this.options.self.name)!;
    own.timer?.cancel();
    const waitMs = stableForMs * SELF_MARGIN;
    own.stableAtMs = this.clock.now() + waitMs;
    own.timer = this.clock.setTimer(waitMs, () => {
      own.timer = undefined;
      if (!this.stopped && better(own, this.current)) this.change(this.bestStable(), 'stable-better');
    });
    if (this.current.name === own.name) this.change(this.bestStable(), 'self-comeback');
  }

  /** Every member the hint knows, best-ranked first, with whether it is eligible and stable. */
  candidates(): LeaderCandidate[] {
    const all: LeaderCandidate[] = [...this.entries.values()].map((e) => ({
      name: e.name,
      rank: e.rank,
      state: e.state,
      stable: this.isStable(e),
    }));
    for (const b of this.baseline.members) {
      if (!this.entries.has(b.name)) all.push({ name: b.name, rank: b.rank, state: 'alive', stable: true });
    }
    return all.sort((a, b) => (better(a, b) ? -1 : better(b, a) ? 1 : 0));
  }

  /** Cancels the timers; later events are ignored and the leader stays as it was. */
  stop(): void {
    this.stopped = true;
    for (const e of this.entries.values()) {
      e.timer?.cancel();
      e.timer = undefined;
    }
  }

  /** A member of this hint's own, from now on preferred to the baseline's (which stays untouched). */
  private entry(name: string, meta: Uint8Array | undefined, rank?: number): Entry {
    const m = meta ?? EMPTY;
    const e: Entry = {
      name,
      rank: rank ?? rankOf(this.options.rank, name, m),
      meta: m,
      state: 'alive',
      timer: undefined,
      stableAtMs: Number.NEGATIVE_INFINITY,
    };
    this.entries.set(name, e);
    // The leader object may have been the baseline's.
    if (this.current?.name === name) this.current = e;
    return e;
  }

  /** Stores new metadata; whether the rank changed. */
  private setMeta(e: Entry, meta: Uint8Array): boolean {
    e.meta = meta;
    const rank = rankOf(this.options.rank, e.name, meta);
    if (rank === e.rank) return false;
    e.rank = rank;
    return true;
  }

  private isStable(e: Entry): boolean {
    return e.state === 'alive' && (e.timer === undefined || this.clock.now() >= e.stableAtMs);
  }

  private becameEligible(e: Entry, firstHeard: boolean): void {
    e.state = 'alive';
    e.timer?.cancel();
    e.timer = undefined;
    // A member never heard of has no failures to flap between; a comeback has to last first.
    if (firstHeard || this.options.stableForMs === 0) {
      if (better(e, this.current)) this.change(e, 'stable-better');
      else if (this.yielding()) this.change(e, 'self-comeback');
      return;
    }
    // The same sum as the clock's due time, so that a wait ending now counts as over (see `timer`).
    e.stableAtMs = this.clock.now() + this.options.stableForMs;
    e.timer = this.clock.setTimer(this.options.stableForMs, () => {
      e.timer = undefined;
      if (this.stopped || e.state !== 'alive') return;
      if (better(e, this.current)) this.change(this.bestStable(), 'stable-better');
      else if (this.yielding()) this.change(this.bestStable(), 'self-comeback');
    });
  }

  /**
   * Whether the local member names itself only for want of another stable member, while it waits out
   * its own comeback: the first stable member to turn up takes the lead from it.
   */
  private yielding(): boolean {
    return (
      this.current.name === this.options.self.name && !this.isStable(this.entries.get(this.current.name)!)
    );
  }

  private becameIneligible(e: Entry, state: 'suspect' | 'dead' | 'left'): void {
    e.state = state;
    e.timer?.cancel();
    e.timer = undefined;
    if (e.name === this.current.name) this.change(this.bestStable(), `leader-${state}`);
  }

  private rankChanged(e: Entry): void {
    if (e.name === this.current.name || (this.isStable(e) && better(e, this.current))) {
      const best = this.bestStable();
      if (best.name !== this.current.name) this.change(best, 'rank-changed');
    }
  }

  /**
   * The best-ranked stable member; the local member when no member is stable, itself included (waiting
   * out its own comeback): a hint always names someone. The baseline's members are in rank order, so its
   * first one this hint holds nothing else about is its best; the rest are this hint's own.
   */
  private bestStable(): RankedMember {
    let best: RankedMember | undefined;
    for (const b of this.baseline.members) {
      if (this.entries.has(b.name)) continue;
      best = b;
      break;
    }
    for (const e of this.entries.values()) {
      if ((best === undefined || better(e, best)) && this.isStable(e)) best = e;
    }
    return best ?? this.entries.get(this.options.self.name)!;
  }

  private change(to: RankedMember, cause: LeaderChangeCause): void {
    if (to.name === this.current.name) return;
    const previous = this.current.name;
    this.current = to;
    this.changes++;
    this.onChange({
      leader: to.name,
      previous,
      epoch: this.changes,
      atMs: this.clock.now(),
      wallMs: this.clock.wallNow(),
      cause,
    });
  }
}

/** A suspicion refuted, or a return from death or a departure: what may be a flap. */
function isComeback(previous: LeaderInput['previous']): boolean {
  return previous === 'suspect' || previous === 'dead' || previous === 'left';
}

/** `rank(name, meta)`, with NaN ranking last. */
function rankOf(rank: RankFunction, name: string, meta: Uint8Array): number {
  const r = rank(name, meta);
  return Number.isNaN(r) ? Number.NEGATIVE_INFINITY : r;
}

/** Whether `a` ranks before `b`: higher rank, then the smaller name (by code unit, as on every host). */
function better(a: Pick<RankedMember, 'name' | 'rank'>, b: Pick<RankedMember, 'name' | 'rank'>): boolean {
  return a.rank > b.rank || (a.rank === b.rank && a.name < b.name);
}
