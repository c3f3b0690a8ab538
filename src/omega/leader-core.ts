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
 * - when the leader becomes ineligible, the lead moves at once to the best stable member;
 * - a stable member ranked better than the leader takes the lead (when its wait ends, or its rank rises).
 * Once every view holds the same members eligible for `stableForMs`, every view names the best of them.
 *
 * Sans-I/O: time and timers come from the injected {@link Clock}, events arrive as calls, and changes
 * leave through a callback. It is a hint for liveness, never a lock: two members may name different
 * leaders at the same moment.
 */
import type { Clock, Timer } from '../runtime/clock.js';
import type { MemberEvent } from '../swim/events.js';
import type { MemberStateName } from '../swim/member-state.js';
import {
  type LeaderCoreOptions,
  type ResolvedLeaderOptions,
  resolveLeaderOptions,
} from './leader-options.js';

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
  | 'rank-changed';

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
  readonly cause: LeaderChangeCause;
}

/** A member as the hint ranks it, best first in {@link LeaderCore.candidates}. */
export interface LeaderCandidate {
  readonly name: string;
  readonly rank: number;
  readonly state: MemberStateName;
  /** Eligible (alive) for at least `stableForMs`, so that it may take the lead. */
  readonly stable: boolean;
}

/** What the hint needs of a member at start: its name, state and (for its rank) metadata. */
export interface KnownMember {
  readonly name: string;
  readonly state: MemberStateName | 'unknown';
  readonly meta?: Uint8Array;
}

/** The parts of a {@link MemberEvent} the hint reads. */
export type LeaderInput = Pick<MemberEvent, 'type' | 'member' | 'previous'>;

interface Entry {
  readonly name: string;
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
const EMPTY = new Uint8Array(0);

/** The sans-I/O leader hint of one member. */
export class LeaderCore {
  private readonly entries = new Map<string, Entry>();
  private readonly options: ResolvedLeaderOptions;
  private current: Entry;
  private changes = 0;
  private stopped = false;

  /**
   * @param options - see {@link LeaderCoreOptions}; validated here
   * @param clock - time for `stableForMs` and the changes' timestamps
   * @param onChange - called synchronously on every change of the leader
   * @param known - the members known at start (stable at once); the local member is added if missing
   */
  constructor(
    options: LeaderCoreOptions,
    private readonly clock: Clock,
    private readonly onChange: (change: LeaderChange) => void,
    known: Iterable<KnownMember> = [],
    owner = 'LeaderCore',
  ) {
    this.options = resolveLeaderOptions(owner, options, KNOWN_OPTIONS);
    const self = this.options.self;
    const own = this.entry(self.name, self.meta);
    for (const m of known) {
      if (m.name === self.name || m.state === 'unknown') continue;
      this.entry(m.name, m.meta).state = m.state;
    }
    this.current = own;
    for (const e of this.entries.values()) if (this.isStable(e) && better(e, this.current)) this.current = e;
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
    const known = this.entries.get(event.member);
    const e = known ?? this.entry(event.member, meta);
    const rankChanged = known !== undefined && meta !== undefined && this.setMeta(e, meta);
    switch (event.type) {
      case 'alive':
      case 'update':
        // `previous` alive: an update about a member this hint had not heard of, alive all along.
        if (e.state !== 'alive' || known === undefined)
          this.becameEligible(
            e,
            event.previous !== 'suspect' && event.previous !== 'dead' && event.previous !== 'left',
          );
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

  /** Every member the hint knows, best-ranked first, with whether it is eligible and stable. */
  candidates(): LeaderCandidate[] {
    return [...this.entries.values()]
      .sort((a, b) => (better(a, b) ? -1 : better(b, a) ? 1 : 0))
      .map((e) => ({ name: e.name, rank: e.rank, state: e.state, stable: this.isStable(e) }));
  }

  /** Cancels the timers; later events are ignored and the leader stays as it was. */
  stop(): void {
    this.stopped = true;
    for (const e of this.entries.values()) {
      e.timer?.cancel();
      e.timer = undefined;
    }
  }

  private entry(name: string, meta: Uint8Array | undefined): Entry {
    const m = meta ?? EMPTY;
    const e: Entry = {
      name,
      rank: this.rankOf(name, m),
      meta: m,
      state: 'alive',
      timer: undefined,
      stableAtMs: Number.NEGATIVE_INFINITY,
    };
    this.entries.set(name, e);
    return e;
  }

  private rankOf(name: string, meta: Uint8Array): number {
    const rank = this.options.rank(name, meta);
    return Number.isNaN(rank) ? Number.NEGATIVE_INFINITY : rank;
  }

  /** Stores new metadata; whether the rank changed. */
  private setMeta(e: Entry, meta: Uint8Array): boolean {
    e.meta = meta;
    const rank = this.rankOf(e.name, meta);
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
      return;
    }
    // The same sum as the clock's due time, so that a wait ending now counts as over (see `timer`).
    e.stableAtMs = this.clock.now() + this.options.stableForMs;
    e.timer = this.clock.setTimer(this.options.stableForMs, () => {
      e.timer = undefined;
      if (!this.stopped && e.state === 'alive' && better(e, this.current)) {
        this.change(this.bestStable(), 'stable-better');
      }
    });
  }

  private becameIneligible(e: Entry, state: 'suspect' | 'dead' | 'left'): void {
    e.state = state;
    e.timer?.cancel();
    e.timer = undefined;
    if (e === this.current) this.change(this.bestStable(), `leader-${state}`);
  }

  private rankChanged(e: Entry): void {
    if (e === this.current || (this.isStable(e) && better(e, this.current))) {
      const best = this.bestStable();
      if (best !== this.current) this.change(best, 'rank-changed');
    }
  }

  /** The best-ranked stable member: the local member at worst. */
  private bestStable(): Entry {
    let best = this.entries.get(this.options.self.name)!;
    for (const e of this.entries.values()) if (better(e, best) && this.isStable(e)) best = e;
    return best;
  }

  private change(to: Entry, cause: LeaderChangeCause): void {
    if (to === this.current) return;
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

/** Whether `a` ranks before `b`: higher rank, then the smaller name (by code unit, as on every host). */
function better(a: Entry, b: Entry): boolean {
  return a.rank > b.rank || (a.rank === b.rank && a.name < b.name);
}
