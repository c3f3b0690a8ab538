/**
 * One member's view of the cluster, as every mechanism reads it: the names and addresses it knows
 * (the directory, which the simulator shares among its members), each one's state and incarnation (the
 * table) and the randomized round-robin of probe targets (the order), over one compact storage.
 */
import { ALIVE, DEAD, LEFT, SUSPECT, stateName, UNKNOWN } from '../membership/member-state.js';
import type { Clock } from '../runtime/clock.js';
import type { Random } from '../runtime/random.js';
import type { MemberInfo, MemberSuspicion } from './core-types.js';
import type { MemberDirectory } from './directory.js';
import { MemberTable } from './member-table.js';
import { ProbeOrder } from './probe-order.js';
import { sharedBaseline, ViewStorage } from './view-storage.js';

const EMPTY = new Uint8Array(0);

/** What {@link MemberView.snapshot} reads of the running suspicions (the suspicions have it). */
export interface SuspicionSource {
  /** The accuser and confirmations of the suspicion of `id` that runs here, if one does. */
  suspicionOf(id: number): MemberSuspicion | undefined;
}

export class MemberView {
  readonly table: MemberTable;
  readonly order: ProbeOrder;
  private readonly storage = new ViewStorage();

  /**
   * @param selfId - this member's own id in `directory`
   * @param gossipToTheDeadMs - how long a member held dead still receives gossip
   * @param measuresRtt - keep each member's smoothed probe round trip; off with `trackPhi`, for the
   *   same reason: a simulator of thousands of members holds thousands of views
   */
  constructor(
    readonly directory: MemberDirectory,
    readonly selfId: number,
    private readonly clock: Clock,
    private readonly gossipToTheDeadMs: number,
    private readonly measuresRtt = true,
  ) {
    this.table = new MemberTable(this.storage);
    this.order = new ProbeOrder(this.storage);
  }

  /**
   * Every member known, this one included, in directory order: a new array of snapshots, with the
   * smoothed probe round trip once measured, and the accusation of a suspect (from `suspicions`) or of
   * a member declared dead (from the table).
   */
  snapshot(phiOf: (id: number) => number, suspicions?: SuspicionSource): MemberInfo[] {
    const { directory, table } = this;
    const out: MemberInfo[] = [];
    for (let id = 0; id < directory.size; id++) {
      const state = table.stateOf(id);
      if (state === UNKNOWN) continue;
      const rttMs = table.rttOf(id);
      const accusation =
        state === SUSPECT
          ? suspicions?.suspicionOf(id)
          : state === DEAD
            ? table.declaredDeadBy(id)
            : undefined;
      out.push({
        name: directory.nameOf(id),
        address: directory.addressOf(id),
        state: stateName(state),
        incarnation: table.incarnationOf(id),
        meta: table.metadataOf(id) ?? EMPTY,
        phi: phiOf(id),
        ...(rttMs === undefined ? {} : { rttMs }),
        ...(accusation === undefined ? {} : { suspicion: { ...accusation } }),
      });
    }
    return out;
  }

  /** Adds one direct probe's round trip to member `id`'s smoothed round trip, when the view keeps them. */
  recordRtt(id: number, rttMs: number): void {
    if (this.measuresRtt) this.table.recordRtt(id, rttMs);
  }

  /** Members known in any state, this one included: memberlist's estimate of n. */
  get clusterSize(): number {
    return this.table.known;
  }

  /** Whether the member is alive or suspect in this view, and not this member. */
  isProbeable(id: number): boolean {
    const state = this.table.stateOf(id);
    return id !== this.selfId && (state === ALIVE || state === SUSPECT);
  }

  /** Whether `id` still receives gossip: live, or dead (not left) for less than gossipToTheDeadMs. */
  isGossipTarget(id: number): boolean {
    const state = this.table.stateOf(id);
    // A member that left has nothing to refute: gossip sent to it would be lost to those still here.
    if (id === this.selfId || state === UNKNOWN || state === LEFT) return false;
    if (state === ALIVE || state === SUSPECT) return true;
    return (
      this.clock.now() - (this.table.downSinceMs(id) ?? Number.NEGATIVE_INFINITY) <= this.gossipToTheDeadMs
    );
  }

  /**
   * Makes every member of the directory known as alive at `incarnation`, except those in `excluded`,
   * without events or gossip: the simulator's warm start of a formed cluster.
   */
  assumeDirectoryMembers(incarnation: number, excluded: readonly number[], random: Random): void {
    const size = this.directory.size;
    const skip = [...excluded, this.selfId].sort((a, b) => a - b);
    if (this.table.known === 0 && this.order.size === 0) {
      // Every simulated member starts from the same view: share its pages until they change.
      this.table.adoptBaseline(sharedBaseline(this.directory, size, ALIVE, incarnation), skip);
      this.order.listFlagged(size);
    } else {
      this.storage.reserve(size);
      this.table.assumeAlive(size, incarnation, skip);
      this.order.appendAll(size, (id) => this.table.stateOf(id) === ALIVE);
    }
    this.order.shuffleRest(random);
  }
}
