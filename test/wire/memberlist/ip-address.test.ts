/** fdkit's `host:port` against memberlist's raw IP bytes and port; vectors written by hand. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromIpPort, toIpPort } from '../../../src/wire/memberlist/ip-address.js';

const bytes = (ip: Uint8Array | undefined): number[] | undefined => (ip === undefined ? undefined : [...ip]);

describe('toIpPort', () => {
  it('writes IPv4 as its 4 bytes', () => {
    const at = toIpPort('127.0.0.1:7946');
    expect(bytes(at?.ip)).toEqual([127, 0, 0, 1]);
    expect(at?.port).toBe(7946);
    expect(bytes(toIpPort('10.200.3.255:1')?.ip)).toEqual([10, 200, 3, 255]);
  });

  it('writes IPv6 as its 16 bytes, group by group, big-endian', () => {
    expect(bytes(toIpPort('[::1]:80')?.ip)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    const doc = toIpPort('[2001:db8::a:1]:53');
    expect(bytes(doc?.ip)).toEqual([0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0a, 0, 1]);
    expect(doc?.port).toBe(53);
    expect(bytes(toIpPort('[fe80:1:2:3:4:5:6:ffff]:65535')?.ip)).toEqual([
      0xfe, 0x80, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0xff, 0xff,
    ]);
  });

  it('has nothing for a host name, a zoned IPv6 address or something that is no address', () => {
    expect(toIpPort('node-1.example:7946')).toBeUndefined();
    expect(toIpPort('localhost:7946')).toBeUndefined();
    expect(toIpPort('[fe80::1%eth0]:7946')).toBeUndefined();
    expect(toIpPort('127.0.0.1')).toBeUndefined();
    expect(toIpPort('')).toBeUndefined();
    expect(toIpPort('1.2.3.4:99999')).toBeUndefined();
  });
});

describe('fromIpPort', () => {
  it('reads 4 bytes as IPv4', () => {
    expect(fromIpPort(Uint8Array.of(10, 0, 0, 5), 7946)).toBe('10.0.0.5:7946');
    expect(fromIpPort(Uint8Array.of(255, 255, 255, 255), 1)).toBe('255.255.255.255:1');
  });

  it('reads Go’s 16-byte IPv4-mapped form as the same IPv4 address', () => {
    const mapped = Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 5);
    expect(fromIpPort(mapped, 7946)).toBe('10.0.0.5:7946');
  });

  it('reads 16 bytes as compressed IPv6 in brackets', () => {
    const loopback = new Uint8Array(16);
    loopback[15] = 1;
    expect(fromIpPort(loopback, 80)).toBe('[::1]:80');
    const doc = Uint8Array.of(0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0a, 0, 1);
    expect(fromIpPort(doc, 53)).toBe('[2001:db8::a:1]:53');
  });

  it('has nothing for an IP of another length or a port outside 1–65535', () => {
    expect(fromIpPort(new Uint8Array(0), 80)).toBeUndefined();
    expect(fromIpPort(Uint8Array.of(1, 2, 3), 80)).toBeUndefined();
    expect(fromIpPort(new Uint8Array(5), 80)).toBeUndefined();
    expect(fromIpPort(new Uint8Array(17), 80)).toBeUndefined();
    for (const port of [0, -1, 65_536, 1.5, Number.NaN]) {
      expect(fromIpPort(Uint8Array.of(1, 2, 3, 4), port)).toBeUndefined();
    }
    expect(fromIpPort(Uint8Array.of(1, 2, 3, 4), 65_535)).toBe('1.2.3.4:65535');
  });
});

describe('round trips', () => {
  const port = fc.integer({ min: 1, max: 65_535 });

  it('IPv4 bytes come back as they went', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 4, maxLength: 4 }), port, (ip, p) => {
        const back = toIpPort(fromIpPort(ip, p)!);
        expect(bytes(back?.ip)).toEqual([...ip]);
        expect(back?.port).toBe(p);
      }),
    );
  });

  it('IPv6 bytes come back as they went, unless they are an IPv4-mapped address', () => {
    const v6 = fc
      .uint8Array({ minLength: 16, maxLength: 16 })
      .filter((ip) => !(ip.subarray(0, 10).every((b) => b === 0) && ip[10] === 0xff && ip[11] === 0xff));
    fc.assert(
      fc.property(v6, port, (ip, p) => {
        const back = toIpPort(fromIpPort(ip, p)!);
        expect(bytes(back?.ip)).toEqual([...ip]);
        expect(back?.port).toBe(p);
      }),
    );
  });
});
