/**
 * Interning of member names into small integer ids, so that per-member state can live in typed arrays
 * indexed by id instead of an object per entry. A real node owns its directory. The simulator shares one
 * directory among all its members, because names and addresses are the same facts everywhere there; that
 * sharing is what keeps 10,000 simulated views of 10,000 members within memory.
 */
import { strBytes } from './message-size.js';

export class MemberDirectory {
  private readonly ids = new Map<string, number>();
  private readonly names: string[] = [];
  private readonly addresses: string[] = [];
  // Encoded size of name and address, for sizing state exchanges without re-measuring strings.
  private readonly entrySizes: number[] = [];

  /** Number of names interned so far; ids are 0 .. size − 1. */
  get size(): number {
    return this.names.length;
  }

  /** The id of `name`, interning it (with `address`) if it is new. */
  intern(name: string, address: string): number {
    let id = this.ids.get(name);
    if (id === undefined) {
      id = this.names.length;
      this.ids.set(name, id);
      this.names.push(name);
      this.addresses.push(address);
      this.entrySizes.push(strBytes(name) + strBytes(address));
    }
    return id;
  }

  /** The id of `name`, or undefined when it was never interned. */
  find(name: string): number | undefined {
    return this.ids.get(name);
  }

  nameOf(id: number): string {
    return this.names[id]!;
  }

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
