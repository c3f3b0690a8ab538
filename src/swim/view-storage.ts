/**
 * The memory of one member's view: per member id, its state (1 byte), its probe-list flag (1 byte), its
 * incarnation (4 bytes), and one slot of the probe list (2 bytes while ids fit in 16 bits, 4 beyond).
 *
 * State, flag and incarnation live in pages of {@link PAGE_SIZE} ids, and a page may be shared,
 * copy-on-write, with other views: a simulator of 10,000 members holds 10,000 views of 10,000 members
 * that start identical (everyone alive at the same incarnation) and differ later only where something
 * happened. Sharing the starting pages keeps that O(n²) state from being touched, page by page, at the
 * start; on a virtual machine, first touching fresh memory costs more than everything the protocol does
 * with it. A real member never shares a page and pays one array lookup more per read.
 */
import { UNKNOWN } from '../membership/member-state.js';

const PAGE_BITS = 7;
/** Ids per page. */
export const PAGE_SIZE = 1 << PAGE_BITS;
const PAGE_MASK = PAGE_SIZE - 1;

/**
 * Pages that views can share: every id below `size` in one state, listed, at one incarnation. Treat as
 * immutable; views copy a page before they write to it.
 */
export class ViewBaseline {
  readonly states: readonly Uint8Array[];
  readonly listed: readonly Uint8Array[];
  readonly incarnations: readonly Uint32Array[];

  constructor(
    readonly size: number,
    readonly state: number,
    readonly incarnation: number,
  ) {
    const pages = Math.ceil(size / PAGE_SIZE);
    const states: Uint8Array[] = [];
    const listed: Uint8Array[] = [];
    const incarnations: Uint32Array[] = [];
    for (let p = 0; p < pages; p++) {
      // Ids past `size` in the last page stay unknown and unlisted.
      const end = Math.min(PAGE_SIZE, size - p * PAGE_SIZE);
      states.push(new Uint8Array(PAGE_SIZE).fill(UNKNOWN).fill(state, 0, end));
      listed.push(new Uint8Array(PAGE_SIZE).fill(1, 0, end));
      incarnations.push(new Uint32Array(PAGE_SIZE).fill(incarnation, 0, end));
    }
    this.states = states;
    this.listed = listed;
    this.incarnations = incarnations;
  }
}

const baselines = new WeakMap<object, ViewBaseline>();

/**
 * The alive baseline of `size` ids at `incarnation` that views sharing `owner` (the simulator's shared
 * directory) share: made once, on first use.
 */
export function sharedBaseline(
  owner: object,
  size: number,
  state: number,
  incarnation: number,
): ViewBaseline {
  const cached = baselines.get(owner);
  if (cached?.size === size && cached.state === state && cached.incarnation === incarnation) return cached;
  const baseline = new ViewBaseline(size, state, incarnation);
  baselines.set(owner, baseline);
  return baseline;
}

export class ViewStorage {
  order: Int32Array | Uint16Array;
  private states: Uint8Array[] = [];
  private listedFlags: Uint8Array[] = [];
  private incarnations: Uint32Array[] = [];
  /** 1 for a page shared with other views (copy before writing). */
  private shared = new Uint8Array(0);
  private pages = 0;

  constructor(capacity = 16) {
    this.order = new Uint16Array(0);
    this.allocate(Math.max(1, capacity));
  }

  /** Number of ids the storage holds. */
  get capacity(): number {
    return this.order.length;
  }

  /** State code of `id`; UNKNOWN beyond the capacity. */
  state(id: number): number {
    const page = this.states[id >>> PAGE_BITS];
    return page === undefined ? UNKNOWN : page[id & PAGE_MASK]!;
  }

  /** Incarnation of `id`; 0 beyond the capacity. */
  incarnation(id: number): number {
    const page = this.incarnations[id >>> PAGE_BITS];
    return page === undefined ? 0 : page[id & PAGE_MASK]!;
  }

  /** Whether `id` is in the probe list. */
  isListed(id: number): boolean {
    const page = this.listedFlags[id >>> PAGE_BITS];
    return page !== undefined && page[id & PAGE_MASK] === 1;
  }

  /** Sets state and incarnation of `id`, which must be below the capacity. */
  set(id: number, state: number, incarnation: number): void {
    const p = id >>> PAGE_BITS;
    if (this.shared[p] === 1) this.own(p);
    this.states[p]![id & PAGE_MASK] = state;
    this.incarnations[p]![id & PAGE_MASK] = incarnation;
  }

  /** Flags `id` (below the capacity) as in the probe list or not. */
  setListed(id: number, listed: boolean): void {
    const p = id >>> PAGE_BITS;
    if (this.shared[p] === 1) this.own(p);
    this.listedFlags[p]![id & PAGE_MASK] = listed ? 1 : 0;
  }

  /** Makes room for ids below `size`, growing by doubling when it must grow. */
  ensure(size: number): void {
    if (size <= this.capacity) return;
    let capacity = this.capacity * 2;
    while (capacity < size) capacity *= 2;
    this.allocate(capacity);
  }

  /** Makes room for exactly `size` ids (when the final size is known, as at a simulator's start). */
  reserve(size: number): void {
    if (size > this.capacity) this.allocate(size);
  }

  /**
   * Takes the baseline's pages as this view's, shared. Meant for a view that holds nothing yet: what it
   * held in those pages is replaced.
   */
  adopt(baseline: ViewBaseline): void {
    const pages = baseline.states.length;
    for (let p = 0; p < pages; p++) {
      this.states[p] = baseline.states[p]!;
      this.listedFlags[p] = baseline.listed[p]!;
      this.incarnations[p] = baseline.incarnations[p]!;
    }
    // Pages of its own only beyond the baseline's, which were just taken over.
    this.pages = Math.max(this.pages, pages);
    this.reserve(baseline.size);
    this.shared.fill(1, 0, pages);
  }

  private own(p: number): void {
    this.states[p] = this.states[p]!.slice();
    this.listedFlags[p] = this.listedFlags[p]!.slice();
    this.incarnations[p] = this.incarnations[p]!.slice();
    this.shared[p] = 0;
  }

  private allocate(capacity: number): void {
    const order = capacity <= 65_536 ? new Uint16Array(capacity) : new Int32Array(capacity);
    order.set(this.order);
    this.order = order;
    const pages = Math.ceil(capacity / PAGE_SIZE);
    const shared = new Uint8Array(pages);
    shared.set(this.shared);
    this.shared = shared;
    for (let p = this.pages; p < pages; p++) {
      this.states.push(new Uint8Array(PAGE_SIZE).fill(UNKNOWN));
      this.listedFlags.push(new Uint8Array(PAGE_SIZE));
      this.incarnations.push(new Uint32Array(PAGE_SIZE));
    }
    this.pages = pages;
  }
}
