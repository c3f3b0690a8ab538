/**
 * Coalescing of encoded memberlist messages into compounds within a datagram budget, in their order: a
 * ping and the updates piggybacked on it leave together as far as the budget allows, and the rest
 * follow in further datagrams. A message alone, or one above the budget, goes as it is.
 */
import { encodeMlCompound, ML_COMPOUND_PART_BYTES_MAX, ML_COMPOUND_PARTS_MAX } from './compound.js';

/** The compound header (type and count) and each part's 2-byte length. */
const HEADER_BYTES = 2;
const PART_OVERHEAD_BYTES = 2;

/** Datagram payloads carrying `parts` (encoded messages), each within `budgetBytes` where it can be. */
export function packMlCompound(parts: readonly Uint8Array[], budgetBytes: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let group: Uint8Array[] = [];
  let size = HEADER_BYTES;
  const close = (): void => {
    if (group.length === 1) out.push(group[0]!);
    else if (group.length > 1) out.push(encodeMlCompound(group));
    group = [];
    size = HEADER_BYTES;
  };
  for (const part of parts) {
    // A part a compound cannot carry (over 64 KiB), or one above the budget alone, leaves on its own.
    if (
      part.length > ML_COMPOUND_PART_BYTES_MAX ||
      part.length + HEADER_BYTES + PART_OVERHEAD_BYTES > budgetBytes
    ) {
      close();
      out.push(part);
      continue;
    }
    if (size + PART_OVERHEAD_BYTES + part.length > budgetBytes || group.length === ML_COMPOUND_PARTS_MAX)
      close();
    group.push(part);
    size += PART_OVERHEAD_BYTES + part.length;
  }
  close();
  return out;
}
