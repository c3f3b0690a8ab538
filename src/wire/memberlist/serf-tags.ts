/**
 * HashiCorp Serf's tags in memberlist's node metadata (docs/memberlist-wire.md, "Serf"): Serf since its
 * protocol 3 writes the byte 255, then the tags as one MessagePack map of string to string (go-msgpack's
 * `MsgpackHandle{}`: str family for keys and values); before that, the metadata was the bare role.
 * Reading follows Serf's `decodeTags`: metadata that does not start with 255 is `{ role: <the bytes> }`,
 * and bytes after the map are ignored.
 */
import { InvalidArgumentError } from '../../errors.js';
import { type Rejection, reject } from '../drop-reason.js';
import { MpReader, MpWriter } from './msgpack.js';
import type { DelegateVersions } from './versions.js';

/** MessagePack's nil. */
const MP_NIL = 0xc0;

/** The first byte of Serf's tag encoding (`tagMagicByte`): no role string of old starts with it. */
export const SERF_TAG_MAGIC = 255;

/**
 * The delegate version range a Serf agent's memberlist advertises: Serf's protocol range (2 to 5) and
 * the version it speaks by default (4, `serf agent` without `-protocol`). memberlist refuses a state
 * exchange with a member whose current delegate version is outside the range every member understands,
 * so an fdkit member joining Serf sets `memberlist: { delegateVersions: SERF_DELEGATE_VERSIONS }`.
 */
export const SERF_DELEGATE_VERSIONS: DelegateVersions = Object.freeze({ min: 2, max: 5, current: 4 });

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Serf's tags, decoded from a member's metadata. */
export interface SerfTagsRead {
  /** Always true: tells the result from a {@link Rejection}. */
  readonly ok: true;
  /** The tags, by name (an own property per tag, whatever its name). */
  readonly tags: Readonly<Record<string, string>>;
}

/**
 * The metadata that gives a member `tags` in Serf's eyes (`serf members` lists them): the byte 255, then
 * the map, keys in code-unit order (Go writes them in map order, which varies; any order reads the same).
 * The result must fit memberlist's metadata limit of 512 bytes, which the node checks.
 *
 * @throws {@link InvalidArgumentError} when a tag's name or value is not a string.
 */
export function encodeSerfTags(tags: Readonly<Record<string, string>>): Uint8Array {
  const names = Object.keys(tags).sort();
  const out = new MpWriter(64).u8(SERF_TAG_MAGIC).map(names.length);
  for (const name of names) {
    const value: unknown = tags[name];
    if (typeof value !== 'string') {
      throw new InvalidArgumentError('tags', `encodeSerfTags: tag ${JSON.stringify(name)} must be a string`);
    }
    out.str(name).str(value);
  }
  return out.finish();
}

/**
 * The tags a Serf member's metadata carries, read as Serf reads them. Never throws: metadata that is
 * not a map of strings after the magic byte, or a role that is not UTF-8, is a {@link Rejection}.
 * Empty metadata is `{ role: '' }`, as Serf shows a member without tags from a protocol before 3.
 */
export function decodeSerfTags(meta: Uint8Array): SerfTagsRead | Rejection {
  if (meta.length === 0 || meta[0] !== SERF_TAG_MAGIC) {
    let role: string;
    try {
      role = utf8.decode(meta);
    } catch {
      return reject('invalid-field', 'serf role: not UTF-8');
    }
    return { ok: true, tags: Object.fromEntries([['role', role]]) };
  }
  const reader = new MpReader(meta, 1);
  // go-msgpack writes a nil Go map as nil; Serf reads it as no tags.
  const n = reader.peek() === MP_NIL ? 0 : reader.readMapLength('serf tags');
  const entries: [string, string][] = [];
  for (let i = 0; i < n && reader.ok; i++) {
    const name = reader.readString(meta.length, 'serf tag name');
    const value = reader.readString(meta.length, `serf tag ${JSON.stringify(name)}`);
    entries.push([name, value]);
  }
  if (!reader.ok) return reject(reader.reason, reader.detail);
  // fromEntries defines own properties: a tag named __proto__ is a tag, not a prototype; the last of two
  // equal names wins, as in Go's map.
  return { ok: true, tags: Object.fromEntries(entries) };
}
