/**
 * Which address to advertise when the transport binds a wildcard host (`0.0.0.0`, `::`) and no
 * `advertise` option says otherwise. Peers cannot send to `0.0.0.0`, so, like memberlist's
 * `GetPrivateIP`, pick an address of this machine: a private IPv4 address first (the usual cluster
 * network), then any other non-loopback one, then loopback.
 *
 * Pure: the caller passes the interfaces (`os.networkInterfaces()`), so that tests can pass their own.
 */
import { ipv6Groups, isIPv4 } from './address.js';

/** One address of a network interface, as `os.networkInterfaces()` lists it. */
export interface InterfaceAddress {
  /** The IP address, without prefix length (`10.0.0.5`, `fe80::1`). */
  readonly address: string;
  /** `'IPv4'` / `'IPv6'` (Node 18.4+), or 4 / 6 (Node 18.0 to 18.3). */
  readonly family: string | number;
  /** True for loopback addresses, which other hosts cannot reach. */
  readonly internal: boolean;
}

function isPrivateIPv4(address: string): boolean {
  const [a = 0, b = 0] = address.split('.').map(Number);
  return a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168);
}

/** Link-local IPv6 (fe80::/10) needs a zone to be reached, so it is useless to peers. */
function isLinkLocalIPv6(address: string): boolean {
  const first = ipv6Groups(address)?.[0] ?? 0;
  return (first & 0xffc0) === 0xfe80;
}

/**
 * The host to advertise for a wildcard bind of IP version `family`. For IPv4: a private IPv4 address,
 * else another non-loopback IPv4 address, else `127.0.0.1`. For IPv6 (a dual-stack socket): a
 * non-loopback, non-link-local IPv6 address, else an IPv4 address chosen as above, else `::1`.
 */
export function chooseAdvertiseHost(
  family: 4 | 6,
  interfaces: Readonly<Record<string, readonly InterfaceAddress[] | undefined>>,
): string {
  const all = Object.values(interfaces).flatMap((list) => list ?? []);
  const external = all.filter((info) => !info.internal);
  const v4 = external.filter((info) => (info.family === 'IPv4' || info.family === 4) && isIPv4(info.address));
  const bestV4 = v4.find((info) => isPrivateIPv4(info.address)) ?? v4[0];
  if (family === 4) return bestV4?.address ?? '127.0.0.1';
  const v6 = external.find(
    (info) =>
      (info.family === 'IPv6' || info.family === 6) &&
      !info.address.includes('%') &&
      !isLinkLocalIPv6(info.address),
  );
  return v6?.address ?? bestV4?.address ?? '::1';
}
