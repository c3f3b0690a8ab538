/**
 * The memory of one member's view, in a single buffer: per member id, its state (1 byte), its
 * probe-list flag (1 byte), its incarnation (4 bytes), and one slot of the probe list (2 bytes while ids
 * fit in 16 bits, 4 beyond). Eight bytes a member, and one allocation for all four arrays: a
 * 10,000-member simulation holds 10,000 views of 10,000 members, and allocating typed arrays one by one,
 * then faulting in their pages, is what would dominate its start.
 */
import { UNKNOWN } from './member-state.js';

export class ViewStorage {
  states!: Uint8Array;
  listed!: Uint8Array;
  incarnations!: Uint32Array;
  order!: Int32Array | Uint16Array;

  constructor(capacity = 16) {
    this.allocate(Math.max(1, capacity));
  }

  /** Number of ids the arrays hold. */
  get capacity(): number {
    return this.states.length;
  }

  /** Makes room for ids below `size`, growing by doubling when it must grow. */
  ensure(size: number): void {
    if (size <= this.states.length) return;
    let capacity = this.states.length * 2;
    while (capacity < size) capacity *= 2;
    this.allocate(capacity);
  }

  /** Makes room for exactly `size` ids (when the final size is known, as at a simulator's start). */
  reserve(size: number): void {
    if (size > this.states.length) this.allocate(size);
  }

  private allocate(capacity: number): void {
    const orderBytes = capacity <= 65_536 ? 2 : 4;
    const buffer = new ArrayBuffer(capacity * (6 + orderBytes));
    const incarnations = new Uint32Array(buffer, 0, capacity);
    const order =
      orderBytes === 2
        ? new Uint16Array(buffer, capacity * 4, capacity)
        : new Int32Array(buffer, capacity * 4, capacity);
    const states = new Uint8Array(buffer, capacity * (4 + orderBytes), capacity).fill(UNKNOWN);
    const listed = new Uint8Array(buffer, capacity * (5 + orderBytes), capacity);
    if (this.states !== undefined) {
      incarnations.set(this.incarnations);
      order.set(this.order);
      states.set(this.states);
      listed.set(this.listed);
    }
    this.incarnations = incarnations;
    this.order = order;
    this.states = states;
    this.listed = listed;
  }
}
