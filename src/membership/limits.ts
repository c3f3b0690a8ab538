/**
 * Bounds the protocol puts on what a member says about itself: its name, its address, its metadata and
 * application payloads. The wire codec (docs/design.md, "Wire") enforces the same bounds on what arrives,
 * so a member can never be configured into saying something its peers would drop.
 */

/** Largest metadata a member may carry, in bytes, as in memberlist. */
export const META_BYTES_MAX = 512;

/** Member names: 1 to 255 bytes of UTF-8. */
export const NAME_BYTES_MAX = 255;

/** Addresses (`host:port`, opaque to the protocol): 1 to 255 bytes of UTF-8, the longest DNS name. */
export const ADDRESS_BYTES_MAX = 255;

/**
 * Largest application payload (a direct message or a broadcast), in bytes: 63 KiB, so that a direct
 * message from a member with the longest name still fits one UDP datagram (64,512 + 3 header bytes +
 * 257 for the name + 4 for the envelope and an empty update list = 64,776 ≤ 65,507). A broadcast must
 * also fit the sender's `packetBytesMax`, since it travels piggybacked.
 */
export const USER_PAYLOAD_BYTES_MAX = 64_512;

/**
 * UTF-8 length of `s` when it is well-formed text without U+FFFD, else −1. U+FFFD is refused because it
 * is what a decoder makes of invalid UTF-8: a name containing it could not be told from a corrupted one.
 * Stops early, returning a value above `maxBytes`, once `maxBytes` is exceeded.
 */
export function wellFormedUtf8Length(s: string, maxBytes: number): number {
  let bytes = 0;
  for (let i = 0; i < s.length && bytes <= maxBytes; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      const low = s.charCodeAt(i + 1); // NaN past the end, which fails the test below
      if (!(low >= 0xdc00 && low <= 0xdfff)) return -1;
      bytes += 4;
      i++;
    } else if ((c >= 0xdc00 && c <= 0xdfff) || c === 0xfffd) return -1;
    else bytes += 3;
  }
  return bytes;
}

/** Whether `s` is a non-empty string of well-formed UTF-8 of at most `maxBytes` bytes. */
export function isWireText(s: unknown, maxBytes: number): s is string {
  if (typeof s !== 'string' || s.length === 0) return false;
  const bytes = wellFormedUtf8Length(s, maxBytes);
  return bytes >= 0 && bytes <= maxBytes;
}

/** The highest incarnation: the wire carries incarnations as unsigned 32-bit integers. */
export const INCARNATION_MAX = 0xffff_ffff;
