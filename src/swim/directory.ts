/**
 * Interning of member names into small integer ids, so that per-member state can live in typed arrays
 * indexed by id instead of an object per entry. A real node owns its directory. The simulator shares one
 * directory among all its members, because names and addresses are the same facts everywhere there; that
 * sharing is what keeps 10,000 simulated views of 10,000 members within memory.
 */
import { strBytes } from './message-size.js';

/**
 * Member names interned to small integer ids, with each member's current address. Give one to several
 * {@link SwimCore}s (option `directory`) only when they describe the same cluster, as the simulator's
 * members do; a core that owns its directory frees the ids of the members it forgets.
 */
export class MemberDirectory {
  private readonly ids = new Map<string, number>();
  private readonly names: string[] = [];
  private readonly addresses: string[] = [];
  // Encoded size of name and address, for sizing state exchanges without re-measuring strings.
  private readonly entrySizes: number[] = [];
  // Ids of released names, handed out again before new ones, so that churn does not grow the directory.
  private readonly free: number[] = [];

  /** Ids handed out so far, released ones included; ids are 0 .. size − 1. */
  get size(): number {
    return this.names.length;
  }

  /** The id of `name`, interning it (with `address`) if it is new. */
  intern(name: string, address: string): number {
    let id = this.ids.get(name);
    if (id !== undefined) return id;
    id = this.free.pop();
    if (id === undefined) {
      id = this.names.length;
      this.names.push(name);
      this.addresses.push(address);
      this.entrySizes.push(0);
    }
    this.ids.set(name, id);
    this.names[id] = name;
    this.setAddress(id, address);
    return id;
  }

  /**
   * Frees the name of `id`, whose id a later new name may take. Only for a directory that one view owns,
   * once that view holds `id` unknown; a shared directory keeps every name.
   */
  release(id: number): void {
    const name = this.names[id];
    if (name === undefined || this.ids.get(name) !== id) return;
    this.ids.delete(name);
    this.names[id] = '';
    this.addresses[id] = '';
    this.entrySizes[id] = 0;
    this.free.push(id);
  }

  /** The id of `name`, or undefined when it was never interned. */
  find(name: string): number | undefined {
    return this.ids.get(name);
  }

  /**
   * The name interned as `id`; the empty string for a released id. `id` must be below {@link size}: this
   * is the hot path of every view, so it is not checked.
   */
  nameOf(id: number): string {
    return this.names[id]!;
  }

  /** The current address of `id` (the last {@link setAddress}), unchecked as {@link nameOf} is. */
  addressOf(id: number): string {
    return this.addresses[id]!;
  }

  /** Encoded size of the name and address of `id` together. */
  nameAndAddressBytes(id: number): number {
    return this.entrySizes[id]!;
  }

  /** Records a member's new address (it restarted elsewhere). */
  setAddress(id: number, address: string): void {
    this.addresses[id] = address;
    this.entrySizes[id] = strBytes(this.names[id]!) + strBytes(address);
  }
}
