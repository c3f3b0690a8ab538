/** Equivalent mutants of src/wire/ (one group of its files, so that each can be worked on apart): see ../equivalents.ts. */
import type { Equivalent } from '../equivalent.js';

/**
 * Unpackr options that msgpackr's unpacking never reads (node_modules/msgpackr/unpack.js, 2.1.3, the
 * version package-lock.json pins). The constructor reads `useRecords` only to default `mapsAsObjects`
 * when it is undefined (it is given here) and under `sequential` (not set), then copies the options onto
 * the instance; no read path looks at `this.useRecords` or `currentUnpackr.useRecords`, and `moreTypes`
 * appears nowhere in unpack.js (it is a Packr option: the extensions it adds are registered for unpacking
 * regardless). Record definitions (ext 0x72) are read whatever the option says.
 */
const UNREAD_OPTION =
  'msgpackr 2.1.3 never reads this option when unpacking (see UNREAD_OPTION in bench/mutation/equivalents/wire-decode.ts)';

export const WIRE_DECODE: readonly Equivalent[] = [
  // decode-reader.ts: the Unpackr options
  {
    file: 'src/wire/decode-reader.ts',
    mutator: 'BooleanLiteral',
    original: 'false',
    replacement: 'true',
    line: 27,
    why: `useRecords: ${UNREAD_OPTION}`,
  },
  {
    file: 'src/wire/decode-reader.ts',
    mutator: 'BooleanLiteral',
    original: 'false',
    replacement: 'true',
    line: 31,
    why: `moreTypes: ${UNREAD_OPTION}`,
  },
  {
    file: 'src/wire/decode-reader.ts',
    mutator: 'BooleanLiteral',
    original: 'false',
    replacement: 'true',
    line: 32,
    why:
      'copyBuffers only chooses how readBin returns a bin value: a copy (Uint8Array.prototype.slice) or a ' +
      'view (subarray). A bin value reaches a decoded message only as meta or payload, each passed through ' +
      'copyBytes, which returns EMPTY_BYTES or new Uint8Array(b), a fresh copy with its own buffer either ' +
      'way; a bin anywhere else fails its field check and the message is dropped. Extension data is a ' +
      'subarray whatever the option. So the messages returned are the same, with one copy more',
  },

  // decode-reader.ts: module state that is always written before it is read
  {
    file: 'src/wire/decode-reader.ts',
    mutator: 'StringLiteral',
    original: "'malformed'",
    line: 39,
    why:
      "failReason's initial value is never read: failed() is called only after a reader returned undefined, " +
      'and every reader returns undefined only after fail() (directly, through bad(), or through a reader ' +
      'it called that did), which sets failReason and failDetail first, in the same decode',
  },
  {
    file: 'src/wire/decode-reader.ts',
    mutator: 'StringLiteral',
    original: "''",
    replacement: '"Stryker was here!"',
    line: 40,
    why: "failDetail's initial value is never read, for the reason given for failReason's (line 39)",
  },
  {
    // The three -1 of unpackedEnd: its initial value, the `?? -1` in takeFirst and the reset in unpackOne.
    file: 'src/wire/decode-reader.ts',
    mutator: 'UnaryOperator',
    original: '-1',
    replacement: '+1',
    why:
      'no -1 given to unpackedEnd is ever read: it is read once, in unpackOne after unpackMultiple returned ' +
      'without throwing, and msgpackr 2.1.3 unpackMultiple (unpack.js) unpacks the first value and calls ' +
      'forEach(value, lastPosition, position) before it can return, with position a number, so takeFirst ' +
      'has set unpackedEnd to that end (the `?? -1` is never taken) after the reset; the module initial is ' +
      'overwritten by that reset before any read',
  },

  // decode-stream.ts
  {
    // names, addresses and metas of readMembers
    file: 'src/wire/decode-stream.ts',
    mutator: 'ArrayDeclaration',
    original: 'new Array(n)',
    replacement: 'new Array()',
    why:
      'the length only presizes: the loop assigns names[i], addresses[i] and metas[i] for every i from 0 to ' +
      'n − 1 in order before the arrays are returned, and every early exit returns undefined and drops ' +
      'them, so both give arrays of length n with the same elements (no holes left in either)',
  },
];
