/**
 * The events a SWIM member reports: each member transition, with enough to explain it afterwards, each
 * application message, and this member's own declared death.
 */
import type { MemberEvent, TransitionCause } from '../membership/events.js';
import type { SwimContext } from './context.js';
import type { RefutedEvent, SwimEvent } from './events.js';
import type { DeadUpdate } from './messages.js';
import type { Suspicion } from './suspicion.js';

export class Reporter {
  /**
   * @param emit - where events go (the environment)
   * @param liveSetChanged - runs when a member joins or leaves the set of live members (the death
   *   watch's ring follows that set)
   */
  constructor(
    private readonly ctx: SwimContext,
    private readonly emit: (event: SwimEvent) => void,
    private readonly liveSetChanged: () => void,
  ) {}

  /** Reports a transition of member `id` (now in the view's state) from `previous`. */
  member(
    type: MemberEvent['type'],
    id: number,
    previous: MemberEvent['previous'],
    cause: TransitionCause,
    suspicion?: Suspicion,
    accuser?: string,
  ): void {
    // The ring of the death watch holds the live members: a suspicion, its refutation or new metadata
    // leave it as it was.
    if (isLive(type) !== isLive(previous)) this.liveSetChanged();
    const { view, clock, health } = this.ctx;
    const who = accuser ?? suspicion?.accuser;
    const event: MemberEvent = {
      type,
      member: view.directory.nameOf(id),
      address: view.directory.addressOf(id),
      incarnation: view.table.incarnationOf(id),
      previous,
      atMs: clock.now(),
      wallMs: clock.wallNow(),
      cause,
      ...(who === undefined ? {} : { accuser: who }),
      confirmations: suspicion?.confirmations ?? 0,
      localHealth: health.awareness.score,
    };
    this.emit(event);
  }

  /** Reports that `d` declared this member dead; `refuted`: it answered with a higher incarnation. */
  declaredDead(d: DeadUpdate, refuted: boolean): void {
    const clock = this.ctx.clock;
    this.emit({
      type: 'declared-dead',
      member: this.ctx.name,
      accuser: d.from,
      incarnation: d.incarnation,
      refuted,
      atMs: clock.now(),
      wallMs: clock.wallNow(),
    });
  }

  /** Reports that this member answered a statement of `accuser` holding it `held` at `incarnation`. */
  refuted(accuser: string, held: RefutedEvent['held'], incarnation: number): void {
    const clock = this.ctx.clock;
    this.emit({
      type: 'refuted',
      member: this.ctx.name,
      accuser,
      held,
      incarnation,
      atMs: clock.now(),
      wallMs: clock.wallNow(),
    });
  }

  /** Reports an application message: a direct one, or a broadcast that gossip delivered. */
  message(from: string, payload: Uint8Array, broadcast: boolean): void {
    const clock = this.ctx.clock;
    this.emit({ type: 'message', from, payload, broadcast, atMs: clock.now(), wallMs: clock.wallNow() });
  }
}

/** Whether a member is alive or suspect in this state, or after this event (`update`: new metadata). */
function isLive(state: MemberEvent['type'] | MemberEvent['previous']): boolean {
  return state === 'alive' || state === 'suspect' || state === 'update';
}
