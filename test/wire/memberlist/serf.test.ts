/**
 * Serf's tags and leave intent (src/wire/memberlist/serf-tags.ts, serf-intents.ts) against bytes written
 * by hand from go-msgpack's rules (Serf's `encodeTags`, `encodeMessage`) and against bytes a real Serf
 * agent (Debian's serf 0.9.4, `serf agent -tag role=db`) sent, captured from the wire; decoding never
 * throws on any bytes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Rejection } from '../../../src/wire/drop-reason.js';
import { encodeSerfLeaveIntent, readSerfClock } from '../../../src/wire/memberlist/serf-intents.js';
import {
  decodeSerfTags,
  encodeSerfTags,
  SERF_DELEGATE_VERSIONS,
  type SerfTagsRead,
} from '../../../src/wire/memberlist/serf-tags.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const bytes = (h: string) => new Uint8Array(Buffer.from(h.replace(/\s+/g, ''), 'hex'));
const ascii = (s: string) => Buffer.from(s, 'latin1').toString('hex');

function tagsOf(meta: Uint8Array): Readonly<Record<string, string>> {
  const read = decodeSerfTags(meta);
  if (!read.ok) throw new Error(`rejected: ${read.detail}`);
  return read.tags;
}

function rejected(read: SerfTagsRead | Rejection): Rejection {
  if (read.ok) throw new Error(`accepted: ${JSON.stringify(read.tags)}`);
  return read;
}

/** The metadata of `serf agent -tag role=db`, as the agent sent it. */
const SERF_ROLE_DB = 'ff 81 a4 726f6c65 a2 6462';

/**
 * The push-pull user state of that agent at a join: type 2, then {EventLTime: 1, Events: 512 nils,
 * LTime: 1, LeftMembers: [], QueryLTime: 1, StatusLTimes: {s1: 0}}, as captured.
 */
const SERF_PUSH_PULL = `02 86 aa ${ascii('EventLTime')} 01 a6 ${ascii('Events')} dc0200 ${'c0'.repeat(512)}
  a5 ${ascii('LTime')} 01 ab ${ascii('LeftMembers')} 90 aa ${ascii('QueryLTime')} 01
  ac ${ascii('StatusLTimes')} 81 a2 ${ascii('s1')} 00`;

describe('encodeSerfTags', () => {
  it("writes the magic byte, then a map of str keys and values, keys in order, as Serf's encodeTags", () => {
    expect(hex(encodeSerfTags({ role: 'web', dc: 'x' }))).toBe(
      `ff82a2${ascii('dc')}a1${ascii('x')}a4${ascii('role')}a3${ascii('web')}`,
    );
    expect(hex(encodeSerfTags({ role: 'db' }))).toBe(hex(bytes(SERF_ROLE_DB)));
    expect(hex(encodeSerfTags({}))).toBe('ff80');
  });

  it('writes a value of 32 bytes or more as str16, never str8 (go-msgpack without WriteExt)', () => {
    expect(hex(encodeSerfTags({ k: 'v'.repeat(40) }))).toBe(`ff81a1${ascii('k')}da0028${'76'.repeat(40)}`);
  });

  it('writes non-ASCII names and values as UTF-8', () => {
    expect(hex(encodeSerfTags({ é: '€' }))).toBe('ff81a2c3a9a3e282ac');
  });

  it('refuses a value that is not a string', () => {
    expect(() => encodeSerfTags({ n: 1 } as unknown as Record<string, string>)).toThrow(
      /"n" must be a string/,
    );
  });
});

describe('decodeSerfTags', () => {
  it('reads the tags a Serf agent sent and the ones fdkit writes', () => {
    expect(tagsOf(bytes(SERF_ROLE_DB))).toEqual({ role: 'db' });
    expect(tagsOf(bytes(`ff82a2${ascii('dc')}a1${ascii('x')}a4${ascii('role')}a3${ascii('web')}`))).toEqual({
      dc: 'x',
      role: 'web',
    });
    expect(tagsOf(bytes('ff80'))).toEqual({});
    // A nil map, as go-msgpack writes a nil Go map.
    expect(tagsOf(bytes('ffc0'))).toEqual({});
  });

  it('reads metadata without the magic byte as the bare role of Serf before protocol 3', () => {
    expect(tagsOf(bytes(ascii('web')))).toEqual({ role: 'web' });
    expect(tagsOf(new Uint8Array(0))).toEqual({ role: '' });
    expect(rejected(decodeSerfTags(bytes('c3'))).reason).toBe('invalid-field');
  });

  it('takes str8 and bin values, keeps the last of two equal names, and ignores bytes after the map', () => {
    expect(tagsOf(bytes(`ff81a1${ascii('a')}c401${ascii('b')}`))).toEqual({ a: 'b' });
    expect(tagsOf(bytes(`ff81a1${ascii('a')}d901${ascii('b')}`))).toEqual({ a: 'b' });
    expect(tagsOf(bytes(`ff82a1${ascii('a')}a1${ascii('x')}a1${ascii('a')}a1${ascii('y')}`))).toEqual({
      a: 'y',
    });
    expect(tagsOf(bytes(`ff80 00 01`))).toEqual({});
  });

  it('makes a tag named __proto__ an own property, not a prototype', () => {
    const tags = tagsOf(encodeSerfTags(Object.fromEntries([['__proto__', 'p']])));
    expect(Object.getPrototypeOf(tags)).toBe(Object.prototype);
    expect(Object.entries(tags)).toEqual([['__proto__', 'p']]);
  });

  it('rejects a map cut short, a value that is no string, and no map after the magic byte', () => {
    const cut = rejected(decodeSerfTags(bytes(`ff82a1${ascii('a')}a1${ascii('x')}`)));
    expect(cut.reason).toBe('malformed');
    expect(rejected(decodeSerfTags(bytes(`ff81a1${ascii('a')}01`))).reason).toBe('malformed');
    expect(rejected(decodeSerfTags(bytes('ff'))).reason).toBe('malformed');
    expect(rejected(decodeSerfTags(bytes('ff92'))).reason).toBe('malformed');
    expect(rejected(decodeSerfTags(bytes(`ff81a1${ascii('a')}a1ff`))).reason).toBe('invalid-field');
  });

  it('reads back what it writes, for any tags', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.string({ unit: 'grapheme' })), (tags) => {
        const back = tagsOf(encodeSerfTags(tags));
        expect(new Map(Object.entries(back))).toEqual(new Map(Object.entries(tags)));
      }),
      { seed: 20, numRuns: 300 },
    );
  });

  it('never throws, whatever the bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.boolean(), (raw, magic) => {
        const meta = magic ? Uint8Array.of(0xff, ...raw) : raw;
        const read = decodeSerfTags(meta);
        if (read.ok) for (const v of Object.values(read.tags)) expect(typeof v).toBe('string');
      }),
      { seed: 21, numRuns: 2000 },
    );
  });
});

describe('SERF_DELEGATE_VERSIONS', () => {
  it("is Serf's protocol range 2-5, speaking 4 (a Serf library's default)", () => {
    expect(SERF_DELEGATE_VERSIONS).toEqual({ min: 2, max: 5, current: 4 });
  });
});

describe('encodeSerfLeaveIntent', () => {
  it('writes type 0, then {LTime, Node} as go-msgpack writes the struct', () => {
    expect(hex(encodeSerfLeaveIntent('f1', 1))).toBe(
      `0082a5${ascii('LTime')}01a4${ascii('Node')}a2${ascii('f1')}`,
    );
    expect(hex(encodeSerfLeaveIntent('f1', 300))).toBe(
      `0082a5${ascii('LTime')}cd012ca4${ascii('Node')}a2${ascii('f1')}`,
    );
    expect(hex(encodeSerfLeaveIntent('n', 2 ** 32))).toBe(
      `0082a5${ascii('LTime')}cf0000000100000000a4${ascii('Node')}a1${ascii('n')}`,
    );
  });

  it('refuses a time below 1 or not whole, and an empty name', () => {
    expect(() => encodeSerfLeaveIntent('f1', 0)).toThrow(/ltime/);
    expect(() => encodeSerfLeaveIntent('f1', 1.5)).toThrow(/ltime/);
    expect(() => encodeSerfLeaveIntent('', 1)).toThrow(/node/);
  });
});

describe('readSerfClock', () => {
  it("reads LTime from a Serf agent's push-pull state", () => {
    expect(readSerfClock(bytes(SERF_PUSH_PULL))).toEqual({ ok: true, ltime: 1 });
  });

  it('reads LTime wherever it stands in the map, in any integer width', () => {
    const state = bytes(`02 82 a1 ${ascii('X')} 90 a5 ${ascii('LTime')} cf 00000002 00000003`);
    expect(readSerfClock(state)).toEqual({ ok: true, ltime: 2 * 2 ** 32 + 3 });
  });

  it("rejects state that is not Serf's push-pull, or has no LTime, or is cut short", () => {
    expect(readSerfClock(bytes('0080'))).toMatchObject({ ok: false, reason: 'unknown-type' });
    expect(readSerfClock(new Uint8Array(0))).toMatchObject({ ok: false, reason: 'unknown-type' });
    expect(readSerfClock(bytes(`02 81 a1 ${ascii('X')} 01`))).toMatchObject({
      ok: false,
      reason: 'malformed',
    });
    expect(readSerfClock(bytes(`02 81 a5 ${ascii('LTime')}`))).toMatchObject({
      ok: false,
      reason: 'malformed',
    });
    expect(readSerfClock(bytes(`02 81 a5 ${ascii('LTime')} a1 ${ascii('x')}`))).toMatchObject({
      ok: false,
      reason: 'malformed',
    });
  });

  it('never throws, whatever the bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (raw) => {
        const read = readSerfClock(Uint8Array.of(2, ...raw));
        if (read.ok) expect(Number.isSafeInteger(read.ltime)).toBe(true);
      }),
      { seed: 22, numRuns: 2000 },
    );
  });
});
