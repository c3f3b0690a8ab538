import { isIPv4 as nodeIsIPv4, isIPv6 as nodeIsIPv6 } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NetworkError } from '../../src/errors.js';
import {
  canonicalHost,
  formatAddress,
  hostKind,
  isIPv4,
  isIPv6,
  isUnspecifiedHost,
  isValidAddress,
  normalizeAddress,
  parseAddress,
} from '../../src/transport/address.js';
import { chooseAdvertiseHost } from '../../src/transport/advertise.js';

/** The WHATWG URL parser's canonical IPv6 text, an independent reference for RFC 5952 compression. */
function urlCanonical(ipv6: string): string {
  return new URL(`http://[${ipv6}]/`).hostname.slice(1, -1);
}

function badAddressError(address: string, options = {}): NetworkError {
  try {
    parseAddress(address, options);
  } catch (error) {
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).code).toBe('FDKIT_BAD_ADDRESS');
    return error as NetworkError;
  }
  throw new Error(`parseAddress accepted ${JSON.stringify(address)}`);
}

describe('parseAddress', () => {
  it('parses IPv4, bracketed IPv6 and host names', () => {
    expect(parseAddress('127.0.0.1:7946')).toEqual({ host: '127.0.0.1', port: 7946, kind: 'ipv4' });
    expect(parseAddress('[::1]:7946')).toEqual({ host: '::1', port: 7946, kind: 'ipv6' });
    expect(parseAddress('[fe80::1%eth0]:1')).toEqual({ host: 'fe80::1%eth0', port: 1, kind: 'ipv6' });
    expect(parseAddress('Node-1.Example.COM:65535')).toEqual({
      host: 'node-1.example.com',
      port: 65535,
      kind: 'name',
    });
    expect(parseAddress('_sip._udp.example.com.:5060').host).toBe('_sip._udp.example.com.');
  });

  it('canonicalises IPv6 (RFC 5952) and unmaps IPv4-mapped addresses', () => {
    expect(parseAddress('[2001:DB8:0:0:0:0:0:1]:80')).toMatchObject({ host: '2001:db8::1', kind: 'ipv6' });
    expect(parseAddress('[0:0:0:0:0:0:0:0]:80').host).toBe('::');
    expect(parseAddress('[::ffff:10.0.0.1]:80')).toEqual({ host: '10.0.0.1', port: 80, kind: 'ipv4' });
    expect(parseAddress('[::FFFF:a00:1]:80').host).toBe('10.0.0.1');
  });

  it('accepts port 0 only when asked to, as binding does', () => {
    expect(badAddressError('127.0.0.1:0').message).toContain('port 0');
    expect(parseAddress('127.0.0.1:0', { allowPortZero: true }).port).toBe(0);
  });

  it.each([
    ['localhost', 'the port is missing'],
    ['[::1]', 'the port is missing'],
    ['[::1:7946', 'no closing bracket'],
    ['[::1]7946', 'after "]"'],
    ['::1:7946', 'in brackets'],
    [':7946', 'the host is missing'],
    ['127.0.0.1:', 'from 1 to 65535'],
    ['127.0.0.1:65536', 'from 1 to 65535'],
    ['127.0.0.1:-1', 'from 1 to 65535'],
    ['127.0.0.1:07946', 'from 1 to 65535'],
    ['127.0.0.1:79 46', 'from 1 to 65535'],
    ['127.0.0.1:1e3', 'from 1 to 65535'],
    ['256.0.0.1:80', 'neither an IP address nor a host name'],
    ['10.0.1:80', 'neither an IP address nor a host name'],
    ['01.2.3.4:80', 'neither an IP address nor a host name'],
    ['[1.2.3.4]:80', 'is not an IPv6 address'],
    ['[::g]:80', 'is not an IPv6 address'],
    ['not a host:80', 'neither an IP address nor a host name'],
    ['-bad.example.com:80', 'neither an IP address nor a host name'],
    ['a..b:80', 'neither an IP address nor a host name'],
    [`${'a'.repeat(64)}.com:80`, 'neither an IP address nor a host name'],
    ['', 'the port is missing'],
  ])('rejects %j with FDKIT_BAD_ADDRESS saying %s', (address, problem) => {
    const error = badAddressError(address, { label: 'seed' });
    expect(error.message).toContain(problem);
    expect(error.message).toContain(`seed ${JSON.stringify(address)}`);
    expect(error.address).toBe(address);
    expect(isValidAddress(address)).toBe(false);
  });

  it('rejects a value that is not a string', () => {
    expect(() => parseAddress(7946 as unknown as string)).toThrow(NetworkError);
  });
});

describe('IP literals, against node:net and the URL parser', () => {
  it('agrees with node:net on IPv4 for generated and arbitrary strings', () => {
    fc.assert(
      fc.property(fc.oneof(fc.ipV4(), fc.ipV4Extended(), fc.string({ maxLength: 16 })), (text) => {
        expect(isIPv4(text)).toBe(nodeIsIPv4(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('agrees with node:net on IPv6 and compresses as the URL parser does', () => {
    fc.assert(
      fc.property(fc.ipV6(), (text) => {
        expect(isIPv6(text)).toBe(true);
        const canonical = canonicalHost(text);
        const reference = urlCanonical(text);
        if (isIPv4(canonical)) {
          // IPv4-mapped: we unmap, the URL parser keeps ::ffff:hhhh:hhhh.
          expect(reference).toMatch(/^::ffff:[0-9a-f]{1,4}:[0-9a-f]{1,4}$/);
          expect(urlCanonical(`::ffff:${canonical}`)).toBe(reference);
        } else {
          expect(canonical).toBe(reference);
        }
        expect(canonicalHost(canonical)).toBe(canonical);
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF:.'), maxLength: 45 }),
        (text) => {
          expect(isIPv6(text)).toBe(nodeIsIPv6(text));
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('round-trips every generated address through format and parse', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.ipV4(), fc.ipV6(), fc.domain()),
        fc.integer({ min: 1, max: 65535 }),
        (host, port) => {
          const text = formatAddress(host, port);
          const parsed = parseAddress(text);
          expect(parsed.port).toBe(port);
          expect(parsed.host).toBe(canonicalHost(host));
          expect(formatAddress(parsed.host, parsed.port)).toBe(text);
          expect(normalizeAddress(text)).toBe(text);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('host helpers', () => {
  it('formats IPv6 in brackets and names its kinds', () => {
    expect(formatAddress('::1', 7946)).toBe('[::1]:7946');
    expect(formatAddress('::ffff:127.0.0.1', 1)).toBe('127.0.0.1:1');
    expect(formatAddress('Example.com', 1)).toBe('example.com:1');
    expect(hostKind('10.0.0.1')).toBe('ipv4');
    expect(hostKind('::')).toBe('ipv6');
    expect(hostKind('example')).toBe('name');
    expect(hostKind('exa mple')).toBeUndefined();
  });

  it('recognises the wildcard hosts', () => {
    expect(['0.0.0.0', '::', '0:0:0:0:0:0:0:0'].map(isUnspecifiedHost)).toEqual([true, true, true]);
    expect(['127.0.0.1', '::1', 'host'].map(isUnspecifiedHost)).toEqual([false, false, false]);
  });
});

describe('chooseAdvertiseHost', () => {
  const lo = [
    { address: '127.0.0.1', family: 'IPv4', internal: true },
    { address: '::1', family: 'IPv6', internal: true },
  ];

  it('prefers a private IPv4 address, then any external one, then loopback', () => {
    const eth = [
      { address: '203.0.113.5', family: 'IPv4', internal: false },
      { address: '192.168.1.20', family: 'IPv4', internal: false },
    ];
    expect(chooseAdvertiseHost(4, { lo, eth })).toBe('192.168.1.20');
    expect(chooseAdvertiseHost(4, { lo, eth: [eth[0]!] })).toBe('203.0.113.5');
    expect(chooseAdvertiseHost(4, { lo })).toBe('127.0.0.1');
    expect(chooseAdvertiseHost(4, { lo, old: [{ address: '10.1.2.3', family: 4, internal: false }] })).toBe(
      '10.1.2.3',
    );
    expect(
      chooseAdvertiseHost(4, {
        lo,
        eth: [{ address: '172.32.0.1', family: 'IPv4', internal: false }, eth[1]!],
      }),
    ).toBe('192.168.1.20');
  });

  it('for IPv6 skips link-local addresses and falls back to IPv4, then ::1', () => {
    const linkLocal = { address: 'fe80::1', family: 'IPv6', internal: false };
    const global = { address: '2001:db8::5', family: 'IPv6', internal: false };
    const v4 = { address: '10.0.0.7', family: 'IPv4', internal: false };
    expect(chooseAdvertiseHost(6, { lo, eth: [linkLocal, v4, global] })).toBe('2001:db8::5');
    expect(chooseAdvertiseHost(6, { lo, eth: [linkLocal, v4] })).toBe('10.0.0.7');
    expect(chooseAdvertiseHost(6, { lo, eth: [linkLocal] })).toBe('::1');
  });
});
