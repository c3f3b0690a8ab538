/**
 * The MessagePack subset of `src/wire/memberlist/msgpack.ts`: what the writer emits is checked byte for
 * byte against go-msgpack's rules (worked out by hand from its `msgpack.go`: positive ints in the smallest
 * unsigned form, strings and byte slices in fixstr/str16/str32, never str8 nor bin) and against msgpackr,
 * an independent decoder; the reader is checked on every form msgpackr writes (str8, bin, int widths) and
 * on truncations, which must fail softly, never throw.
 */
import fc from 'fast-check';
import { Packr, Unpackr } from 'msgpackr';
import { describe, expect, it } from 'vitest';
import { fieldKey, MP_FAIL, MpReader, MpWriter } from '../../../src/wire/memberlist/msgpack.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const mapUnpackr = new Unpackr({ mapsAsObjects: false, useRecords: false, int64AsType: 'number' });

describe('MpWriter', () => {
  it('writes unsigned integers in their smallest form, as go-msgpack encodeUint does', () => {
    const cases: [number, string][] = [
      [0, '00'],
      [127, '7f'],
      [128, 'cc80'],
      [255, 'ccff'],
      [256, 'cd0100'],
      [65_535, 'cdffff'],
      [65_536, 'ce00010000'],
      [0xffff_ffff, 'ceffffffff'],
    ];
    for (const [v, h] of cases) expect(hex(new MpWriter().uint(v).finish())).toBe(h);
  });

  it('writes strings and bytes in the str family without str8, and empty bytes as nil', () => {
    expect(hex(new MpWriter().str('').finish())).toBe('a0');
    expect(hex(new MpWriter().str('ab').finish())).toBe('a26162');
    const s31 = 'x'.repeat(31);
    expect(hex(new MpWriter().str(s31).finish())).toBe(`bf${'78'.repeat(31)}`);
    // 32 bytes: str16 (0xda), not str8 (0xd9), since go-msgpack writes str8 only with WriteExt.
    expect(hex(new MpWriter().str('x'.repeat(32)).finish())).toBe(`da0020${'78'.repeat(32)}`);
    expect(hex(new MpWriter().bytes(new Uint8Array(300)).finish()).slice(0, 6)).toBe('da012c');
    expect(hex(new MpWriter().bytes(new Uint8Array(0x1_0000)).finish()).slice(0, 10)).toBe('db00010000');
    expect(hex(new MpWriter().bytes(new Uint8Array(0)).finish())).toBe('c0');
    // UTF-8: 'é' is 2 bytes.
    expect(hex(new MpWriter().str('é').finish())).toBe('a2c3a9');
  });

  it('writes map headers, booleans, nil and the raw helpers', () => {
    expect(hex(new MpWriter().map(15).finish())).toBe('8f');
    expect(hex(new MpWriter().map(16).finish())).toBe('de0010');
    expect(hex(new MpWriter().map(0x1_0000).finish())).toBe('df00010000');
    expect(hex(new MpWriter().bool(true).bool(false).nil().finish())).toBe('c3c2c0');
    expect(hex(new MpWriter(1).u8(7).u16(0x0102).u32(0x0304_0506).finish())).toBe('07010203040506');
  });

  it('writes what msgpackr reads back as the same values (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(
          fc.tuple(fc.string({ maxLength: 40 }), fc.oneof(fc.nat(), fc.string(), fc.boolean())),
          { selector: (e) => e[0] },
        ),
        (entries) => {
          const w = new MpWriter(1).map(entries.length);
          for (const [k, v] of entries) {
            w.str(k);
            if (typeof v === 'number') w.uint(v);
            else if (typeof v === 'string') w.str(v);
            else w.bool(v);
          }
          const expected = new Map(entries);
          // Read back as a Map: as an object, a key like `__proto__` would not be an own entry.
          const got = mapUnpackr.unpack(w.finish()) as Map<string, unknown>;
          expect(got).toEqual(expected);
        },
      ),
    );
  });
});

describe('MpReader', () => {
  it('reads every integer form msgpackr writes, and nil as 0', () => {
    const packr = new Packr({ useRecords: false });
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffff_ffff }), (v) => {
        expect(new MpReader(packr.pack(v)).readUint(0xffff_ffff, 'v')).toBe(v);
      }),
    );
    // int8 5, int16 300, int32 70000, uint64 2^32 − 1, int64 1, nil.
    for (const [h, v] of [
      ['d005', 5],
      ['d1012c', 300],
      ['d200011170', 70_000],
      ['cf00000000ffffffff', 0xffff_ffff],
      ['d30000000000000001', 1],
      ['c0', 0],
    ] as const) {
      expect(new MpReader(Buffer.from(h, 'hex')).readUint(0xffff_ffff, 'v')).toBe(v);
    }
  });

  it('refuses a negative or too large integer as invalid-field, a non-integer as malformed', () => {
    for (const h of ['ff', 'd0ff', 'd1ff00', 'd2ffffffff', 'd3ffffffffffffffff', 'cf0000000100000000']) {
      const r = new MpReader(Buffer.from(h, 'hex'));
      expect(r.readUint(0xffff_ffff, 'v')).toBe(MP_FAIL);
      expect(r.reason).toBe('invalid-field');
    }
    const port = new MpReader(Buffer.from('ce00010000', 'hex'));
    expect(port.readUint(0xffff, 'port')).toBe(MP_FAIL);
    expect(port.detail).toBe('port: 65536 not in [0, 65535]');
    for (const h of ['a0', 'c3', 'cb0000000000000000', '90']) {
      const r = new MpReader(Buffer.from(h, 'hex'));
      expect(r.readUint(10, 'v')).toBe(MP_FAIL);
      expect(r.reason).toBe('malformed');
    }
  });

  it('reads str8 and bin8/16/32 as well as the str family, for strings and bytes alike', () => {
    const forms = [
      'a3616263',
      'd903616263',
      'da0003616263',
      'db00000003616263',
      'c403616263',
      'c50003616263',
    ];
    for (const h of [...forms, 'c600000003616263']) {
      expect(new MpReader(Buffer.from(h, 'hex')).readString(255, 's')).toBe('abc');
      expect(hex(new MpReader(Buffer.from(h, 'hex')).readBytes(255, 'b'))).toBe('616263');
    }
  });

  it('refuses invalid UTF-8 in a string, and a string longer than its bound, as invalid-field', () => {
    const r = new MpReader(Buffer.from('a2c328', 'hex'));
    expect(r.readString(255, 'name')).toBe('');
    expect([r.ok, r.reason, r.detail]).toEqual([false, 'invalid-field', 'name: not UTF-8']);
    const long = new MpReader(Buffer.from('a3616263', 'hex'));
    long.readString(2, 'name');
    expect(long.detail).toBe('name: 3 bytes, more than 2');
  });

  it('fails softly on every truncation of a map, and stays failed', () => {
    const full = new MpWriter().map(2).str('Key').bytes(new Uint8Array(40)).str('N').uint(70_000).finish();
    for (let cut = 0; cut < full.length; cut++) {
      const r = new MpReader(full, 0, cut);
      const n = r.readMapLength('m');
      if (n >= 0) {
        r.readString(10, 'k');
        r.readBytes(100, 'v');
        r.readString(10, 'k');
        r.readUint(0xffff_ffff, 'v');
      }
      expect(r.ok).toBe(false);
      expect(r.reason).toBe('malformed');
      expect(r.readBool('after')).toBe(MP_FAIL);
    }
  });

  it('refuses a container that announces more entries than there are bytes, before looping', () => {
    const r = new MpReader(Buffer.from('dfffffffff00', 'hex'));
    expect(r.readMapLength('m')).toBe(MP_FAIL);
    expect(r.detail).toBe('m: 4294967295 entries announced');
    const a = new MpReader(Buffer.from('dd0000000300', 'hex'));
    expect(a.readArrayLength('a')).toBe(MP_FAIL);
  });

  it('skips any value msgpackr writes, nested, and leaves the cursor after it', () => {
    const packr = new Packr({ useRecords: false, variableMapSize: true });
    const value = {
      a: [1, -1, 300, -300, 70_000, 2 ** 40, 1.5, 'x'.repeat(40), null, true],
      b: { c: new Uint8Array(300) },
    };
    const bytes = Buffer.concat([packr.pack(value), Buffer.from([0x07])]);
    const r = new MpReader(bytes);
    expect(r.skip('v')).toBe(true);
    expect(r.readUint(10, 'next')).toBe(7);
    // Extensions (fixext 4, ext8) too.
    const ext = new MpReader(Buffer.from('d60100000000c7020a0102', 'hex'));
    expect(ext.skip('e') && ext.skip('e') && ext.remaining === 0).toBe(true);
  });

  it('refuses to skip a byte that is no MessagePack (0xc1) or a truncated value', () => {
    expect(new MpReader(Buffer.from('c1', 'hex')).skip('v')).toBe(false);
    expect(new MpReader(Buffer.from('92a3616263', 'hex')).skip('v')).toBe(false);
    expect(new MpReader(Buffer.from('da00', 'hex')).skip('v')).toBe(false);
  });

  it('never throws on arbitrary bytes (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const r = new MpReader(bytes);
        r.skip('v');
        const s = new MpReader(bytes);
        s.readMapLength('m');
        s.readString(255, 's');
        s.readBytes(255, 'b');
        s.readUint(0xffff_ffff, 'u');
        s.readBool('b');
        expect(s.pos).toBeLessThanOrEqual(bytes.length);
      }),
    );
  });

  it('matches a field name by its bytes, and only a whole fixstr', () => {
    const r = new MpReader(Buffer.from('a453657153a5536571', 'hex'));
    expect(r.takeKey(fieldKey('Seq'))).toBe(false); // 'SeqS' is 4 bytes
    expect(r.takeKey(fieldKey('SeqS'))).toBe(true);
    expect(r.takeKey(fieldKey('SeqNo'))).toBe(false); // truncated: only 3 of 5 bytes
  });
});
