/**
 * The leader hint on a live membership source: the sans-I/O {@link LeaderCore} (Ω with stability, see
 * `leader-core.ts`) subscribed to a SWIM node's or a heartbeat monitor's member events, on the system
 * clock, with a typed `'leader'` event. This file is the only place where those meet.
 */
import { EventEmitter } from 'node:events';
import { InvalidOptionError } from '../errors.js';
import type { MemberEvent } from '../membership/events.js';
import type { MemberStateName } from '../membership/member-state.js';
import { checkKnownKeys, describeReceived } from '../options.js';
import type { Clock } from '../runtime/clock.js';
import { systemClock } from '../runtime/system.js';
import type { RefutedEvent } from '../swim/events.js';
import { type KnownMember, type LeaderCandidate, type LeaderChange, LeaderCore } from './leader-core.js';
import type { LeaderCoreOptions, LeaderSelf } from './leader-options.js';

/** The member events a {@link MembershipSource} emits. */
export type MemberEventName = MemberEvent['type'];

/** The events the hint reads: member events, and `refuted`, the local member's own comebacks. */
export type LeaderSourceEvent = MemberEvent | RefutedEvent;

/**
 * Anything that emits member events the way a SWIM node does: a {@link SwimNode}, a
 * {@link HeartbeatMonitor}, or an object of your own. The optional parts let the hint start from the
 * current view and read metadata; without them it learns members from events, with no metadata. A
 * source that never emits `refuted` (a heartbeat monitor) leaves the local member always stable.
 */
export interface MembershipSource {
  /** Subscribes `listener` to one kind of event; the hint subscribes to each kind it reads. */
  on(event: MemberEventName | 'refuted', listener: (event: LeaderSourceEvent) => void): unknown;
  /** Removes a listener that `on` added; the hint calls it when it stops. */
  off(event: MemberEventName | 'refuted', listener: (event: LeaderSourceEvent) => void): unknown;
  /** Every member known, the local one included, with metadata (a SWIM node). */
  members?(): readonly {
    /** Its member name. */
    readonly name: string;
    /** Its state in the source's view. */
    readonly state: MemberStateName;
    /** Its metadata, which the rank function reads. */
    readonly meta: Uint8Array;
  }[];
  /** Every peer monitored (a heartbeat monitor: no metadata). */
  peers?(): readonly {
    /** Its name (its address until its first heartbeat named it). */
    readonly name: string;
    /** Its state; `unknown` before its first heartbeat. */
    readonly state: MemberStateName | 'unknown';
  }[];
  /** The local member (a started SWIM node). */
  readonly localMember?: {
    /** Its member name. */
    readonly name: string;
    /** Its metadata, which the rank function reads. */
    readonly meta: Uint8Array;
  };
  /** The local member's name (a started heartbeat monitor). */
  readonly localName?: string;
}

/**
 * What the hint reads of a split-brain resolver (a `SplitBrainResolver` is one): the members it downed,
 * and whether it downed this member's side.
 */
export interface DowningEvents {
  /** Subscribes to the members this side removed. */
  on(event: 'down', listener: (decision: { readonly members: readonly string[] }) => void): unknown;
  /** Subscribes to this side's own downing. */
  on(event: 'downed-self', listener: () => void): unknown;
  /** Removes a listener that `on` added. */
  off(event: 'down', listener: (decision: { readonly members: readonly string[] }) => void): unknown;
  /** Removes a listener that `on` added. */
  off(event: 'downed-self', listener: () => void): unknown;
}

/** Options of {@link LeaderHint}. */
export interface LeaderHintOptions extends Omit<LeaderCoreOptions, 'self'> {
  /**
   * The local member. Default: the source's own (`localMember` of a SWIM node, `localName` of a
   * heartbeat monitor), which needs the source started.
   */
  readonly self?: LeaderSelf;
  /** Time for `stableForMs` and the events' timestamps. Default: the system clock. */
  readonly clock?: Clock;
  /**
   * The split-brain resolver of this member (docs/downing.md). With it, the hint names only members of
   * the side that stays: the members it downs are no candidates any more (a later life of one, a
   * restart, is), and once it downs this member's side the hint names nobody (`leader` is undefined,
   * and a `'downed'` event tells it), since a side that must stop should not lead.
   */
  readonly downing?: DowningEvents;
}

/** The events of a {@link LeaderHint}, by name. */
export interface LeaderHintEventMap {
  /** The hint names another leader; never emitted for the leader named at start. */
  leader: [LeaderChange];
  /** The resolver downed this member's side: the hint names nobody from now on. Emitted once. */
  downed: [LeaderDowned];
}

/** The `'downed'` event of a {@link LeaderHint}: its member's side was downed, it names nobody now. */
export interface LeaderDowned {
  /** The member it named leader until then. */
  readonly previous: string;
  /** Monotonic time of the decision, ms. */
  readonly atMs: number;
  /** Wall time of the decision, Unix ms. */
  readonly wallMs: number;
}

const OWNER = 'LeaderHint';
const EVENTS: readonly (MemberEventName | 'refuted')[] = [
  'alive',
  'suspect',
  'dead',
  'left',
  'update',
  'refuted',
];
const KNOWN_OPTIONS = ['self', 'stableForMs', 'rank', 'clock', 'downing'] as const;

/**
 * An eventual-leader hint (Ω) over a membership source: {@link LeaderHint.leader} is the best-ranked
 * member that this member's view holds alive, with hysteresis, and every change is a `'leader'` event.
 *
 * **This is a hint for liveness, not a lock.** Members see failures at different times, so two of them
 * may name different leaders at the same moment (during a partition, for as long as it lasts), and a
 * member named leader may have been declared dead elsewhere. Use it to decide who *should* act (run the
 * scheduled job, drive the retries), never as mutual exclusion: when two leaders acting at once would do
 * damage, have the resource check fencing tokens so that a stale leader's writes are refused.
 *
 * Rules: a member is a candidate while its view holds it alive (the local member always is); the
 * leader is the candidate with the highest rank (the `priority=N` of its metadata by default, then the
 * smaller name). When the leader is suspected, declared dead or leaves, the hint moves at once. A
 * better-ranked member that comes back (refutes a suspicion, rejoins after a death) takes over only after
 * staying unsuspected for `stableForMs` (10 s by default), so a flapping member does not flap the
 * leader. The local member holds itself to the same rule: when its node refutes a suspicion, death or
 * leave of itself (a pause, a restart the cluster remembers), it names the best other stable member for
 * `stableForMs` and a tenth, so that it does not name itself while the member that took over still
 * does. `epoch` counts this hint's changes; it is local, not agreed across members.
 *
 * @example
 * ```ts
 * const node = createNode({ name: 'api-1', bind: '0.0.0.0:7946', meta: new TextEncoder().encode('priority=10') });
 * await node.start();
 * await node.join(['10.0.0.2:7946']);
 * const hint = new LeaderHint(node); // self from node.localMember
 * hint.on('leader', (c) => console.log(`leader ${c.previous} -> ${c.leader} (${c.cause}, epoch ${c.epoch})`));
 * if (hint.leader === node.localMember.name) runTheNightlyJob(); // a hint: the job must be safe to run twice
 * // ...
 * hint.stop();
 * ```
 */
export class LeaderHint extends EventEmitter<LeaderHintEventMap> {
  private readonly core: LeaderCore;
  private readonly listener = (event: LeaderSourceEvent): void => this.observe(event);
  private readonly downing: DowningEvents | undefined;
  private readonly onDown = (decision: { readonly members: readonly string[] }): void => {
    for (const member of decision.members) this.core.observe({ type: 'left', member, previous: 'alive' });
  };
  private readonly onDownedSelf = (): void => this.downedSelf();
  private readonly clock: Clock;
  private stopped = false;
  private downed = false;

  /**
   * Subscribes to `source` and starts from its current view (`members()` or `peers()`, when it has
   * one). Throws an `InvalidOptionError` for a bad option, or when `self` is left out and the source
   * cannot tell its own member (not started yet).
   */
  constructor(
    private readonly source: MembershipSource,
    options: LeaderHintOptions = {},
  ) {
    super();
    checkKnownKeys(OWNER, options, KNOWN_OPTIONS);
    const { clock, self, downing, ...rest } = options;
    if (clock !== undefined && (typeof clock.now !== 'function' || typeof clock.setTimer !== 'function')) {
      throw new InvalidOptionError(
        'FDKIT_INVALID_OPTION',
        'clock',
        `${OWNER}: option clock must be a Clock (now, wallNow, setTimer)`,
      );
    }
    if (
      downing !== undefined &&
      (typeof downing !== 'object' ||
        downing === null ||
        typeof downing.on !== 'function' ||
        typeof downing.off !== 'function')
    ) {
      throw new InvalidOptionError(
        'FDKIT_INVALID_OPTION',
        'downing',
        `${OWNER}: option downing must be a SplitBrainResolver (on, off), got ${describeReceived(downing)}`,
      );
    }
    this.clock = clock ?? systemClock;
    this.core = new LeaderCore(
      { ...rest, self: self ?? selfOf(source) },
      this.clock,
      (change) => this.emit('leader', change),
      knownMembers(source),
      OWNER,
    );
    for (const type of EVENTS) source.on(type, this.listener);
    this.downing = downing;
    downing?.on('down', this.onDown);
    downing?.on('downed-self', this.onDownedSelf);
  }

  /**
   * The member this hint names leader now: never undefined (the local member is always a candidate)
   * unless the `downing` resolver downed this member's side.
   */
  get leader(): string | undefined {
    return this.downed ? undefined : this.core.leader;
  }

  /** How many times the leader changed since the hint started: local, not agreed across members. */
  get epoch(): number {
    return this.core.epoch;
  }

  /** Whether the local member is the leader this hint names. */
  get isLeader(): boolean {
    return !this.downed && this.core.leader === this.core.self;
  }

  /** The `stableForMs` in force. */
  get stableForMs(): number {
    return this.core.stableForMs;
  }

  /** Every member the hint knows, best-ranked first, with its state and whether it is stable. */
  candidates(): LeaderCandidate[] {
    return this.core.candidates();
  }

  /**
   * Tells the hint that the local member's metadata changed: a node's own `updateMetadata` emits no
   * event on that node, only on the others.
   */
  updateSelf(meta: Uint8Array): void {
    this.core.updateSelf(meta);
  }

  /** Unsubscribes from the source and cancels the timers; the leader stays as it was. Idempotent. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    for (const type of EVENTS) this.source.off(type, this.listener);
    this.downing?.off('down', this.onDown);
    this.downing?.off('downed-self', this.onDownedSelf);
    this.core.stop();
  }

  private downedSelf(): void {
    if (this.downed) return;
    const previous = this.core.leader;
    this.downed = true;
    this.stop();
    this.emit('downed', { previous, atMs: this.clock.now(), wallMs: this.clock.wallNow() });
  }

  private observe(event: LeaderSourceEvent): void {
    if (event.type === 'refuted') {
      this.core.selfRefuted();
      return;
    }
    // Metadata only comes with a member's (re)appearance or an update; only then is the view read.
    const meta = event.type === 'alive' || event.type === 'update' ? this.metaOf(event.member) : undefined;
    this.core.observe(event, meta);
  }

  private metaOf(name: string): Uint8Array | undefined {
    return this.source.members?.().find((m) => m.name === name)?.meta;
  }
}

/** The local member from the source, or a clear error when it cannot tell. */
function selfOf(source: MembershipSource): LeaderSelf {
  try {
    const member = source.localMember;
    if (member !== undefined) return { name: member.name, meta: member.meta };
    const name = source.localName;
    if (name !== undefined) return { name };
  } catch (error) {
    throw new InvalidOptionError(
      'FDKIT_INVALID_OPTION',
      'self',
      `${OWNER}: option self is required while the source is not started (it cannot tell its own member yet): pass { self: { name, meta } } or create the hint after start()`,
      { cause: error },
    );
  }
  throw new InvalidOptionError(
    'FDKIT_INVALID_OPTION',
    'self',
    `${OWNER}: option self is required: this source has neither localMember nor localName`,
  );
}

/** The source's current view, when it exposes one. */
function knownMembers(source: MembershipSource): KnownMember[] {
  if (source.members !== undefined) return [...source.members()];
  if (source.peers !== undefined) return [...source.peers()];
  return [];
}
