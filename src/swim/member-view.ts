/**
 * One member's view of the cluster, as every mechanism reads it: the names and addresses it knows
 * (the directory, which the simulator shares among its members), each one's state and incarnation (the
 * table) and the randomized round-robin of probe targets (the order), over one compact storage.
 */
import { ALIVE, LEFT, SUSPECT, stateName, UNKNOWN } from '../membership/member-state.js';
import type { Clock } from '../runtime/clock.js';
import type { Random } from '../runtime/random.js';
import type { MemberInfo } from './core-types.js';
import type { MemberDirectory } from './directory.js';
import { MemberTable } from './member-table.js';
import { ProbeOrder } from './probe-order.js';
import { sharedBaseline, ViewStorage } from './view-storage.js';

const EMPTY = new Uint8Array(0);

export class MemberView {
  readonly table: MemberTable;
  readonly order: ProbeOrder;
  private readonly storage = new ViewStorage();

  /**
   * @param selfId - this member's own id in `directory`
   * @param gossipToTheDeadMs - how long a member held dead still receives gossip
   */
  constructor(
    readonly directory: MemberDirectory,
    readonly selfId: number,
    private readonly clock: Clock,
    private readonly gossipToTheDeadMs: number,
  ) {
    this.table = new MemberTable(this.storage);
    this.order = new ProbeOrder(this.storage);
  }

  /** Every member known, this one included, in directory order: a new array of snapshots. */
  snapshot(phiOf: (id: number) => number): MemberInfo[] {
    const { directory, table } = this;
    const out: MemberInfo[] = [];
    for (let id = 0; id < directory.size; id++) {
      const state = table.stateOf(id);
      if (state === UNKNOWN) continue;
      out.push({
        name: directory.nameOf(id),
        address: directory.addressOf(id),
        state: stateName(state),
        incarnation: table.incarnationOf(id),
        meta: table.metadataOf(id) ?? EMPTY,
        phi: phiOf(id),
      });
    }
    return out;
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
