/**
 * The death watch: kernel evidence of a crash at the speed of the kernel. SWIM notices a dead member
 * when its turn in someone's probe round comes, up to a round later (Das, Gupta and Motivala, 2002,
 * section 4.3); fdkit also has each member hold a connection open to the next
 * {@link WATCHED_SUCCESSORS} members on a ring of the live members ordered by name, so that every member
 * is watched by that many. When a watched process dies on a live host, its kernel closes the connection
 * at once. The watcher then tries a fresh connection: a refusal is the same evidence as a late probe's
 * refused connection (`suspicion.ts`), and with two watchers there are two refusals, which end the
 * suspicion one probe timeout later. A kill is thus known everywhere in about a second, where probing
 * alone takes a probe round plus a suspicion timeout.
 *
 * Nothing changes for what the kernel does not see: a paused process keeps its connections open, and a
 * crashed host or a partition closes none; those are left to the probes. A watch that could not be
 * opened proves nothing either, and is tried again later with a doubling back-off.
 *
 * The ring is recomputed, in one pass over the members, as soon as the work that changed the membership
 * is done: a member that joins or comes back is watched from the moment its predecessors hear of it, and
 * the ring closes over a member that died or left at once. Waiting for the next probe period left a new
 * member watched by nobody for up to a period, and a kill in that period waited for a probe. A timer of
 * no delay gathers the changes of one packet or state exchange (a join brings every member at once) into
 * one pass, and nothing runs while the membership does not change. A member's watches then change only
 * where its successors did.
 */

import type { Watch, WatchEnd } from '../membership/connection.js';
import type { Timer } from '../runtime/clock.js';
import type { SwimContext } from './context.js';

/** Members each member watches, and so watchers per member: two, for the two refusals that convict. */
export const WATCHED_SUCCESSORS = 2;
/** Longest back-off between attempts to open a watch that failed, in probe intervals. */
const RETRY_INTERVALS_MAX = 32;

/** What the death watch asks of the other mechanisms. */
export interface DeathWatchPort {
  /** Opens a watch on `address` (the environment). */
  open(address: string, onEnd: (reason: WatchEnd) => void): Watch;
  /** `id`'s host refused a connection (the suspicions). */
  witnessRefused(id: number): void;
  /** Whether a watch on `address` can tell anything (the environment); every member can when absent. */
  watchable?(address: string): boolean;
}

interface Watched {
  readonly id: number;
  address: string;
  handle: Watch | undefined;
  /** When to open it again after it ended (monotonic ms). */
  retryAtMs: number;
  failures: number;
}

export class DeathWatch {
  private readonly watched = new Map<number, Watched>();
  private readonly successors: number[] = [];
  /** The pass that follows the membership changes so far, pending. */
  private followTimer: Timer | undefined;
  private readonly onChanged = (): void => {
    this.followTimer = undefined;
    // A connection attempt that was under way when the member stopped can still report a refusal.
    if (this.ctx.lifecycle.isRunning) this.follow(this.ringSuccessors());
  };

  constructor(
    private readonly ctx: SwimContext,
    private readonly port: DeathWatchPort,
  ) {}

  /** Members this member watches now, by id (for tests and counters). */
  get watching(): readonly number[] {
    return [...this.watched.keys()];
  }

  /** A member's state or address changed: the ring is recomputed once the current work is done. */
  changed(): void {
    this.followTimer ??= this.ctx.clock.setTimer(0, this.onChanged);
  }

  /** Once a probe period: reopens watches whose back-off ran out. */
  tick(): void {
    // Which members can be watched is learnt as they are heard, without a membership change.
    if (this.port.watchable !== undefined) this.changed();
    const now = this.ctx.clock.now();
    for (const w of this.watched.values()) {
      if (w.handle === undefined && now >= w.retryAtMs) this.openWatch(w);
    }
  }

  stop(): void {
    this.followTimer?.cancel();
    this.followTimer = undefined;
    for (const w of this.watched.values()) w.handle?.cancel();
    this.watched.clear();
  }

  private follow(ids: readonly number[]): void {
    const { directory } = this.ctx.view;
    for (const [id, w] of this.watched) {
      if (ids.includes(id) && directory.addressOf(id) === w.address) continue;
      w.handle?.cancel();
      this.watched.delete(id);
    }
    for (const id of ids) {
      if (this.watched.has(id)) continue;
      const w: Watched = {
        id,
        address: directory.addressOf(id),
        handle: undefined,
        retryAtMs: 0,
        failures: 0,
      };
      this.watched.set(id, w);
      this.openWatch(w);
    }
  }

  /**
   * The live members that follow this one on the ring of names: the smallest names above its own, then,
   * wrapping around, the smallest of all.
   */
  private ringSuccessors(): number[] {
    const { view } = this.ctx;
    const self = this.ctx.name;
    const out = this.successors;
    out.length = 0;
    const k = WATCHED_SUCCESSORS;
    const names: string[] = [];
    for (let id = 0; id < view.directory.size; id++) {
      if (!view.isProbeable(id)) continue;
      if (this.port.watchable?.(view.directory.addressOf(id)) === false) continue;
      const name = view.directory.nameOf(id);
      // Insertion into a list of at most k, ordered by distance along the ring.
      let at = out.length;
      while (at > 0 && ringBefore(name, names[at - 1]!, self)) at--;
      if (at >= k) continue;
      out.splice(at, 0, id);
      names.splice(at, 0, name);
      if (out.length > k) {
        out.length = k;
        names.length = k;
      }
    }
    return out;
  }

  private openWatch(w: Watched): void {
    this.ctx.counters.watchesOpened++;
    const handle = this.port.open(w.address, (reason) => this.ended(w, handle, reason));
    w.handle = handle;
  }

  private ended(w: Watched, handle: Watch, reason: WatchEnd): void {
    if (w.handle !== handle || this.watched.get(w.id) !== w) return;
    w.handle = undefined;
    const { lifecycle, config, counters, clock, outbox } = this.ctx;
    if (!lifecycle.isRunning) return;
    const intervalMs = config.probeIntervalMs;
    if (reason === 'closed') {
      counters.watchesClosed++;
      // Its process may be gone: if so, its host refuses a new connection now. If not (it shut its
      // watches for lack of room, say), the watch is opened again next period.
      w.failures = 0;
      w.retryAtMs = clock.now() + intervalMs;
      outbox.tryConnect(w.id, () => this.port.witnessRefused(w.id));
      return;
    }
    w.failures++;
    w.retryAtMs = clock.now() + intervalMs * Math.min(RETRY_INTERVALS_MAX, 2 ** w.failures);
    if (reason === 'refused') {
      counters.connectsRefused++;
      this.port.witnessRefused(w.id);
    }
  }
}

/** Whether `a` comes before `b` going round the ring of names from `self` (names above it first). */
function ringBefore(a: string, b: string, self: string): boolean {
  const aWraps = a < self;
  const bWraps = b < self;
  if (aWraps !== bWraps) return bWraps;
  return a < b;
}
