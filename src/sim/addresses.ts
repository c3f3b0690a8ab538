/**
 * The names and addresses of simulated members, and the reverse: the member at an address. Apart from
 * the simulation because the scheme is a contract with the tests and reports (`simName`) and its
 * reverse is on the path of every packet.
 */
const ADDRESS_PREFIX = 'sim-';
const ADDRESS_SUFFIX = ':7946';

/** The name and address of simulated member `i`. */
export function simName(i: number): string {
  return `n${i}`;
}
export function simAddress(i: number): string {
  return `${ADDRESS_PREFIX}${i}${ADDRESS_SUFFIX}`;
}

/**
 * The member at a simulated address, or −1 for an address that is none: read from the address itself
 * (see {@link simAddress}), because a map lookup per packet, cold in a 10,000-member heap, cost more
 * than all the rest of sending it.
 */
export function simIndexOf(address: string, nodes: number): number {
  if (!address.startsWith(ADDRESS_PREFIX)) return -1;
  let index = 0;
  let i = ADDRESS_PREFIX.length;
  for (; i < address.length; i++) {
    const digit = address.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) break;
    index = index * 10 + digit;
  }
  const digits = i - ADDRESS_PREFIX.length;
  const canonical = digits > 0 && (digits === 1 || address.charCodeAt(ADDRESS_PREFIX.length) !== 48);
  if (!canonical || index >= nodes || address.length !== i + ADDRESS_SUFFIX.length) return -1;
  return address.endsWith(ADDRESS_SUFFIX) ? index : -1;
}
