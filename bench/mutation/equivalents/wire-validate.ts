/** Equivalent mutants of src/wire/ (one group of its files, so that each can be worked on apart): see ../equivalents.ts. */
import type { Equivalent } from '../equivalent.js';

export const WIRE_VALIDATE: readonly Equivalent[] = [
  {
    file: 'src/wire/validate.ts',
    mutator: 'ConditionalExpression',
    original: '!NOT_ASCII.test(v)',
    replacement: 'false',
    why:
      'Only the ASCII fast path goes: an ASCII string then goes through wellFormedUtf8Length, which counts ' +
      'one byte per unit below 0x80 and returns -1 only for a surrogate or U+FFFD (both outside ASCII), ' +
      'so it returns v.length, already checked to be 1 to maxBytes on the line before: FIELD_OK as before.',
  },
  {
    file: 'src/wire/validate.ts',
    mutator: 'EqualityOperator',
    original: 'bytes < 0',
    replacement: 'bytes <= 0',
    why:
      'bytes is never 0 here: v is non-empty (v.length === 0 returned OUT_OF_RANGE above), so the loop of ' +
      'wellFormedUtf8Length runs at least once (it starts at bytes = 0 <= maxBytes), and each pass either ' +
      'returns -1 or adds 1 to 4 bytes.',
  },
  {
    file: 'src/wire/compound.ts',
    mutator: 'ConditionalExpression',
    original: 'encoded.length <= 1',
    replacement: 'false',
    why:
      'The early return is a fast path: without it, no packet gives no group and the result []; one packet ' +
      'gives one group of one part, returned as that part itself (group.parts[0], not joined). Either way a ' +
      'new array holding the same Uint8Array objects, as encoded.slice() returns.',
  },
  {
    file: 'src/wire/compound.ts',
    mutator: 'EqualityOperator',
    original: 'encoded.length <= 1',
    replacement: 'encoded.length < 1',
    why:
      'A single packet then goes through the loop instead: one group of one part, returned as that part ' +
      'itself in a new array, exactly what encoded.slice() returns for it.',
  },
  {
    file: 'src/wire/encode.ts',
    mutator: 'BooleanLiteral',
    original: 'true',
    replacement: 'false',
    line: 31,
    why:
      'variableMapSize only changes how msgpackr writes a plain object (a map: fixmap header instead of ' +
      'map16), and the encoder writes arrays of numbers, strings, booleans and Uint8Arrays, all validated. ' +
      'The one way to a map is a byte field that is a Uint8Array subclass with its own toJSON, which ' +
      "msgpackr writes as that toJSON (a known gap, not this option's doing); the receiver drops such a " +
      'message as malformed (the field is not bin) whatever the map header, so what a peer sees is the same.',
  },
  {
    file: 'src/wire/encode.ts',
    mutator: 'ArrayDeclaration',
    original: 'new Array(source.length)',
    replacement: 'new Array()',
    why:
      'A pre-sizing only: the loop right after assigns every index from 0 to source.length - 1 in order, so ' +
      'the array ends with the same length and elements, which is all msgpackr reads of it.',
  },
  {
    file: 'src/wire/encode.ts',
    mutator: 'ArrayDeclaration',
    original: 'new Array(names.length)',
    replacement: 'new Array()',
    why:
      'A pre-sizing only: the loop right after assigns every index from 0 to names.length - 1 in order, so ' +
      'the array ends with the same length and elements, which is all msgpackr reads of it.',
  },
  {
    file: 'src/wire/keyring.ts',
    mutator: 'EqualityOperator',
    original: 'index > 0',
    replacement: 'index >= 0',
    why:
      'index === 0 (the primary) has thrown FDKIT_REMOVE_PRIMARY_KEY just above, so here index is -1 or ' +
      'positive, where > 0 and >= 0 agree.',
  },
  {
    file: 'src/wire/keyring.ts',
    mutator: 'EqualityOperator',
    original: 'i < KEY_BYTES',
    replacement: 'i <= KEY_BYTES',
    why:
      'Both keys are KEY_BYTES long (checkKey passed both), so the extra pass reads a[KEY_BYTES] and ' +
      'b[KEY_BYTES], undefined on both: undefined !== undefined is false, and the loop ends as before.',
  },
  {
    file: 'src/wire/seal.ts',
    mutator: 'ObjectLiteral',
    original: '{ authTagLength: TAG_BYTES }',
    replacement: '{}',
    why:
      "GCM's default tag length is 16 bytes (TAG_BYTES): a cipher without the option writes the same 16-byte " +
      'tag. A decipher without it accepts any tag length GCM allows, but the tag given to it is always ' +
      'sealed.subarray(length - TAG_BYTES) of a message at least SEAL_OVERHEAD_BYTES long: 16 bytes, ' +
      'checked the same way. (Both calls, in seal and in openWith.)',
  },
  {
    file: 'src/wire/seal.ts',
    mutator: 'BlockStatement',
    original: '{\n    return undefined;\n  }',
    replacement: '{}',
    why:
      'The catch block is the last statement of openWith: with it empty, the function falls off its end, ' +
      'which returns undefined too.',
  },
];
