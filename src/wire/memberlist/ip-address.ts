/**
 * fdkit's `host:port` addresses against memberlist's raw IP bytes and port. memberlist puts a Go `net.IP`
 * on the wire, which is 16 bytes even for IPv4 (the IPv4-mapped form) unless the sender shortened it:
 * both forms read as the same IPv4 address here.
 */
import { canonicalHost, formatAddress, ipv6Groups, isIPv4, parseAddress } from '../../transport/address.js';

/** An address as memberlist carries it. */
export interface IpPort {
  readonly ip: Uint8Array;
  readonly port: number;
}

/**
 * The IP bytes (4 for IPv4, 16 for IPv6) and port of `address`; undefined for a host name or an invalid
 * address, which memberlist cannot carry.
 */
export function toIpPort(address: string): IpPort | undefined {
  let host: string;
  let port: number;
  try {
    ({ host, port } = parseAddress(address));
  } catch {
    return undefined;
  }
  const canonical = canonicalHost(host);
  if (isIPv4(canonical)) {
    return { ip: Uint8Array.from(canonical.split('.').map(Number)), port };
  }
  const groups = ipv6Groups(canonical);
  if (groups === undefined || canonical.includes('%')) return undefined;
  const ip = new Uint8Array(16);
  for (let i = 0; i < 8; i++) {
    ip[2 * i] = groups[i]! >> 8;
    ip[2 * i + 1] = groups[i]! & 0xff;
  }
  return { ip, port };
}

/** `host:port` of memberlist's IP bytes and port; undefined unless the IP is 4 or 16 bytes and the port 1–65535. */
export function fromIpPort(ip: Uint8Array, port: number): string | undefined {
  if (!Number.isInteger(port) || port < 1 || port > 65_535) return undefined;
  if (ip.length === 4) return `${ip[0]}.${ip[1]}.${ip[2]}.${ip[3]}:${port}`;
  if (ip.length !== 16) return undefined;
  const groups: string[] = [];
  for (let i = 0; i < 8; i++) groups.push(((ip[2 * i]! << 8) | ip[2 * i + 1]!).toString(16));
  // formatAddress canonicalises: compressed IPv6, and an IPv4-mapped address as plain IPv4.
  return formatAddress(groups.join(':'), port);
}
