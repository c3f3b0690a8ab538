/**
 * Backpressure from busy members (docs/membership.md, "Busy members"). A member whose timers fire late
 * is behind on its socket buffer: everything sent to it waits behind the rest, and the news of a crash
 * reaches it last, many seconds after everyone else. It says so: a busy statement rides on each of its
 * packets, numbered anew every couple of seconds, and each receiver passes a new one on once. Members
 * that hold its statement
 * - spare it the gossip fan-out (it still hears every update piggybacked on its own probes' acks and on
 *   the pings it gets);
 * - send it each death they declare, straight away, so that it waits behind a short backlog only;
 * - do not ask it to help probe others (it would answer late, and a nack late is a nack missed);
 * - when its ack is late, neither ask helpers about it nor suspect it: it said why, and helpers' pings
 *   would only lengthen its backlog. Its statement holds a few seconds, so a busy member that crashes is
 *   suspected as any other once they have passed.
 *
 * When half the members or more are busy, the cluster as a whole is behind (a host that runs them all,
 * overloaded): sparing them would leave gossip with nowhere to go, and the statements themselves would
 * add to the load. Then nobody is spared and no statement is gossiped, until fewer are busy. Nor does a
 * member that is busy itself spare anyone or pass statements on: it is no better placed than they are,
 * and a member spared gossip misses the joins too. For that reason nobody is spared either while the
 * cluster grows, nor for {@link BUSY_PEER_HOLD_MS} after the last member this one learnt of: a cluster
 * forming on an overloaded host (bench/scale, 100 agents on two cores) left members without a few others
 * for 20 to 33 s after the last join, until a push-pull or a probe from the stranger repaired it.
 */

import { BUSY_PEER_HOLD_MS, BusyPeers } from './busy-peers.js';
import type { BusySelf } from './busy-self.js';
import type { SwimContext } from './context.js';
import type { BusyUpdate, DeadUpdate, Update } from './messages.js';

/** Busy statements queue beside the member's other updates, under keys that are not member ids. */
function queueKey(id: number): number {
  return -1 - id;
}

export class Backpressure {
  private readonly peers: BusyPeers;
  private statementCache: BusyUpdate | undefined;
  private fewBusyAtMs = Number.NaN;
  private fewBusyNow = false;
  /** The cluster size last seen, and when it last grew. */
  private knownSize = 0;
  private grewAtMs = Number.NEGATIVE_INFINITY;

  /** @param self - this member's own signal (its health's) */
  constructor(
    private readonly ctx: SwimContext,
    private readonly self: BusySelf,
  ) {
    this.peers = new BusyPeers(ctx.clock);
    this.knownSize = ctx.view.clusterSize;
  }

  /** The statement this member's packets carry while it is busy; undefined otherwise. */
  statement(): BusyUpdate | undefined {
    if (!this.self.isBusy) return undefined;
    const seq = this.self.seq;
    if (this.statementCache?.seq !== seq) this.statementCache = { kind: 'busy', name: this.ctx.name, seq };
    return this.statementCache;
  }

  /**
   * A protocol period starts: every couple of seconds a busy member numbers a new statement. Its next
   * packets carry it, and each receiver passes a new one on once; the member does not queue it itself,
   * since every packet it sends carries it already.
   */
  periodStarted(): void {
    // Looked at once a period at least, so that a join is seen within a period even with nothing to spare.
    this.noteGrowth();
    if (this.fewBusy) this.self.announce();
  }

  /**
   * A packet from the member called `from` was handled, its other updates applied: its busy statements
   * mark their members (a new one is passed on), and one from `from` itself must be among them for `from`
   * to stay marked.
   */
  received(from: string, updates: readonly Update[]): void {
    let said = false;
    for (const u of updates) {
      if (u.kind !== 'busy') continue;
      this.apply(u);
      if (u.name === from) said = true;
    }
    const id = this.ctx.view.directory.find(from);
    if (id !== undefined && id !== this.ctx.view.selfId && !said && this.peers.isBusy(id)) {
      this.peers.heardFrom(id, said);
      this.fewBusyAtMs = Number.NaN;
    }
  }

  private apply(update: BusyUpdate): void {
    const { view, outbox } = this.ctx;
    const id = view.directory.find(update.name);
    if (id === undefined || id === view.selfId || !view.isProbeable(id)) return;
    const news = this.peers.statement(id, update.seq);
    // A mark changed: whether half the members are busy is worked out again.
    this.fewBusyAtMs = Number.NaN;
    // A busy member passes nothing on: it adds no work to a cluster that may be as busy as it is.
    if (news && this.sparing) outbox.enqueue(update, queueKey(id));
  }

  /** This member declared `dead`: the busy members hear it straight from it. */
  convicted(dead: DeadUpdate): void {
    if (!this.sparing) return;
    const { view, outbox, name } = this.ctx;
    for (const id of this.peers.busy()) {
      outbox.sendPacket(view.directory.addressOf(id), { type: 'gossip', from: name, updates: [dead] });
    }
  }

  /** Whether `id` is spared gossip and helper duty. */
  spares(id: number): boolean {
    return this.sparing && this.peers.isBusy(id);
  }

  /** Whether `id` said it is busy: a late ack of its is excused. */
  excuses(id: number): boolean {
    return this.peers.isBusy(id);
  }

  /** `id` left the view for good. */
  forget(id: number): void {
    this.peers.forget(id);
    this.fewBusyAtMs = Number.NaN;
  }

  /**
   * Whether this member spares the busy ones: it is not busy itself, fewer than half are, and no member
   * joined its view in the last {@link BUSY_PEER_HOLD_MS}.
   */
  private get sparing(): boolean {
    this.noteGrowth();
    const quiet = this.ctx.clock.now() - this.grewAtMs >= BUSY_PEER_HOLD_MS;
    return quiet && this.fewBusy && !this.self.isBusy;
  }

  private noteGrowth(): void {
    const size = this.ctx.view.clusterSize;
    if (size > this.knownSize) this.grewAtMs = this.ctx.clock.now();
    this.knownSize = size;
  }

  /** Whether fewer than half the members are busy; worked out again when a mark or the time changed. */
  private get fewBusy(): boolean {
    const now = this.ctx.clock.now();
    if (now !== this.fewBusyAtMs) {
      this.fewBusyAtMs = now;
      this.fewBusyNow = this.peers.count * 2 < this.ctx.view.clusterSize;
    }
    return this.fewBusyNow;
  }
}
