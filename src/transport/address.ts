/**
 * Addresses as the rest of fdkit sees them: one string `host:port`, with IPv6 hosts in brackets
 * (`[::1]:7946`). Members compare addresses as strings, so parsing also canonicalises: IPv6 in the
 * compressed lower-case form of RFC 5952 (as the WHATWG URL parser writes it), host names in lower case.
 *
 * This file is pure (no `node:` import) so that the protocol layers and the simulator can use it too.
 */
import { NetworkError } from '../errors.js';

/** What kind of host an address names. */
export type HostKind = 'ipv4' | 'ipv6' | 'name';

/** A parsed address. `host` is canonical and has no brackets. */
export interface HostPort {
  /** The host: dotted IPv4, RFC 5952 IPv6 (with its `%zone`, if any) or a lower-case host name. */
  readonly host: string;
  /** The port, an integer in [1, 65535], or 0 where `allowPortZero` accepted it. */
  readonly port: number;
  /** Whether `host` is an IPv4 address, an IPv6 address or a name to resolve. */
  readonly kind: HostKind;
}

/** Options of {@link parseAddress}. */
export interface ParseAddressOptions {
  /** Accept port 0 (an ephemeral port, meaningful only when binding). Default false. */
  readonly allowPortZero?: boolean;
  /** What the address is, for the error message (`bind address`, `seed`). Default `address`. */
  readonly label?: string;
}

const IPV4_OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = new RegExp(`^${IPV4_OCTET}(?:\\.${IPV4_OCTET}){3}$`);
const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/;
const ZONE = /^[0-9A-Za-z_.-]+$/;
const LABEL = /^[0-9A-Za-z_](?:[0-9A-Za-z_-]{0,61}[0-9A-Za-z_])?$/;
const PORT = /^(?:0|[1-9]\d{0,4})$/;
const EXAMPLES = 'e.g. 127.0.0.1:7946, [::1]:7946 or node1.example.com:7946';

/** True when `host` is a dotted-quad IPv4 address (no leading zeros, which some parsers read as octal). */
export function isIPv4(host: string): boolean {
  return IPV4.test(host);
}

/**
 * The eight 16-bit groups of an IPv6 address (without brackets, optionally with a `%zone`), or undefined
 * when `host` is not one.
 */
export function ipv6Groups(host: string): number[] | undefined {
  const percent = host.indexOf('%');
  const bare = percent === -1 ? host : host.slice(0, percent);
  if (percent !== -1 && !ZONE.test(host.slice(percent + 1))) return undefined;
  const halves = bare.split('::');
  if (halves.length > 2) return undefined;
  const parse = (part: string, last: boolean): number[] | undefined => {
    if (part === '') return [];
    const pieces = part.split(':');
    const groups: number[] = [];
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i] ?? '';
      if (last && i === pieces.length - 1 && piece.includes('.')) {
        // An embedded IPv4 address (`::ffff:10.0.0.1`) stands for the last two groups.
        if (!isIPv4(piece)) return undefined;
        const [a = 0, b = 0, c = 0, d = 0] = piece.split('.').map(Number);
        groups.push((a << 8) | b, (c << 8) | d);
      } else if (HEX_GROUP.test(piece)) {
        groups.push(Number.parseInt(piece, 16));
      } else {
        return undefined;
      }
    }
    return groups;
  };
  if (halves.length === 1) {
    const groups = parse(bare, true);
    return groups?.length === 8 ? groups : undefined;
  }
  const head = parse(halves[0] ?? '', false);
  const tail = parse(halves[1] ?? '', true);
  if (head === undefined || tail === undefined || head.length + tail.length > 7) return undefined;
  return [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
}

/** True when `host` is an IPv6 address without brackets. */
export function isIPv6(host: string): boolean {
  return ipv6Groups(host) !== undefined;
}

/** RFC 5952 text of eight groups: lower-case hex, the longest run of two or more zero groups as `::`. */
function formatIPv6Groups(groups: readonly number[]): string {
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = (from: number, to: number): string =>
    groups
      .slice(from, to)
      .map((g) => g.toString(16))
      .join(':');
  if (bestStart === -1) return hex(0, 8);
  return `${hex(0, bestStart)}::${hex(bestStart + bestLength, 8)}`;
}

/** True when `host` is a syntactically valid DNS host name (labels of letters, digits, `-` and `_`). */
export function isHostName(host: string): boolean {
  const name = host.endsWith('.') ? host.slice(0, -1) : host;
  if (name.length === 0 || name.length > 253) return false;
  const labels = name.split('.');
  // A last label of digits only is a mistyped IPv4 address (`10.0.0.256`, `10.0.1`), not a name.
  if (/^\d+$/.test(labels[labels.length - 1] ?? '')) return false;
  return labels.every((label) => LABEL.test(label));
}

/** The kind of `host` (without brackets), or undefined when it is neither an IP address nor a host name. */
export function hostKind(host: string): HostKind | undefined {
  if (isIPv4(host)) return 'ipv4';
  if (isIPv6(host)) return 'ipv6';
  if (isHostName(host)) return 'name';
  return undefined;
}

/**
 * The canonical text of a host: IPv6 compressed and in lower case (zone kept as written), IPv4-mapped IPv6
 * (`::ffff:10.0.0.1`, what a dual-stack socket reports for IPv4 peers) as plain IPv4, names in lower case.
 * A string that is not a host is returned unchanged.
 */
export function canonicalHost(host: string): string {
  const groups = ipv6Groups(host);
  if (groups !== undefined) {
    const percent = host.indexOf('%');
    const zone = percent === -1 ? '' : host.slice(percent);
    if (zone === '' && groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
      const hi = groups[6] ?? 0;
      const lo = groups[7] ?? 0;
      return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
    }
    return formatIPv6Groups(groups) + zone;
  }
  return isHostName(host) ? host.toLowerCase() : host;
}

/** True for the wildcard hosts `0.0.0.0` and `::`, which bind every interface but reach no peer. */
export function isUnspecifiedHost(host: string): boolean {
  if (host === '0.0.0.0') return true;
  const groups = ipv6Groups(host);
  return groups?.every((g) => g === 0) === true;
}

function badAddress(address: string, label: string, problem: string): NetworkError {
  return new NetworkError(
    'FDKIT_BAD_ADDRESS',
    address,
    `${label} ${JSON.stringify(address)} is not a valid host:port: ${problem}`,
  );
}

/**
 * Parses `host:port`. The host is an IPv4 address, an IPv6 address in brackets or a host name; the port
 * an integer from 1 to 65535 (0 too with `allowPortZero`) without leading zeros.
 *
 * @throws {@link NetworkError} with code `FDKIT_BAD_ADDRESS` and a message saying what is wrong.
 *
 * @example
 * ```ts
 * parseAddress('[::1]:7946');        // { host: '::1', port: 7946, kind: 'ipv6' }
 * parseAddress('Node1.local:7946');  // { host: 'node1.local', port: 7946, kind: 'name' }
 * ```
 */
export function parseAddress(address: string, options: ParseAddressOptions = {}): HostPort {
  const label = options.label ?? 'address';
  if (typeof address !== 'string') {
    throw new NetworkError(
      'FDKIT_BAD_ADDRESS',
      undefined,
      `${label} must be a string host:port, ${EXAMPLES}`,
    );
  }
  const parsed = parse(address, options.allowPortZero === true);
  if (typeof parsed === 'string') throw badAddress(address, label, parsed);
  return parsed;
}

/**
 * What is wrong with `address` as `host:port`, as {@link parseAddress} would say it after the address
 * (`the port is missing; …`), or undefined when it would accept it. For validation that reports in its
 * own words, an option's for instance.
 */
export function addressProblem(
  address: string,
  options: Pick<ParseAddressOptions, 'allowPortZero'> = {},
): string | undefined {
  const parsed = parse(address, options.allowPortZero === true);
  return typeof parsed === 'string' ? parsed : undefined;
}

/** `address` parsed, or what is wrong with it. */
function parse(address: string, allowPortZero: boolean): HostPort | string {
  let hostText: string;
  let portText: string;
  if (address.startsWith('[')) {
    const close = address.indexOf(']');
    if (close === -1) return `the IPv6 host has no closing bracket; ${EXAMPLES}`;
    hostText = address.slice(1, close);
    const rest = address.slice(close + 1);
    if (rest === '') return `the port is missing; ${EXAMPLES}`;
    if (!rest.startsWith(':')) return `expected ":port" after "]"`;
    portText = rest.slice(1);
    if (!isIPv6(hostText)) return `${hostText} is not an IPv6 address`;
  } else {
    const colon = address.lastIndexOf(':');
    if (colon === -1) return `the port is missing; ${EXAMPLES}`;
    hostText = address.slice(0, colon);
    portText = address.slice(colon + 1);
    if (hostText.includes(':')) return 'an IPv6 host must be written in brackets, e.g. [::1]:7946';
    if (hostText === '') return 'the host is missing; use 0.0.0.0 or [::] to bind every interface';
  }
  if (!PORT.test(portText) || Number(portText) > 65535) {
    return `the port must be an integer from 1 to 65535, got ${JSON.stringify(portText)}`;
  }
  const port = Number(portText);
  if (port === 0 && !allowPortZero)
    return 'port 0 is only meaningful when binding; give the peer its real port';
  const kind = hostKind(hostText);
  if (kind === undefined) return `${JSON.stringify(hostText)} is neither an IP address nor a host name`;
  const host = canonicalHost(hostText);
  // A bracketed IPv4-mapped address canonicalises to plain IPv4.
  return { host, port, kind: kind === 'ipv6' && isIPv4(host) ? 'ipv4' : kind };
}

/** What precedes the port in an address of `host`: `host:`, or `[host]:` for IPv6, canonicalised. */
export function addressPrefix(host: string): string {
  const canonical = canonicalHost(host);
  return canonical.includes(':') ? `[${canonical}]:` : `${canonical}:`;
}

/** Formats `host` and `port` as `host:port`, bracketing IPv6. The host is canonicalised. */
export function formatAddress(host: string, port: number): string {
  return addressPrefix(host) + port;
}

/** The canonical text of an address, or a {@link NetworkError} `FDKIT_BAD_ADDRESS` thrown. */
export function normalizeAddress(address: string, options: ParseAddressOptions = {}): string {
  const { host, port } = parseAddress(address, options);
  return formatAddress(host, port);
}

/** True when {@link parseAddress} would accept `address`. */
export function isValidAddress(address: string, options: ParseAddressOptions = {}): boolean {
  try {
    parseAddress(address, options);
    return true;
  } catch {
    return false;
  }
}

/** `s` when it is an `ip:port` address (not a host name), else undefined. */
export function literalAddress(s: string): string | undefined {
  try {
    return hostKind(parseAddress(s).host) === 'name' ? undefined : s;
  } catch {
    return undefined;
  }
}
