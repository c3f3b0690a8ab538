/**
 * The member directory.
 */
import { describe, expect, it } from 'vitest';
import { MemberDirectory } from '../../src/swim/directory.js';
import { strBytes } from '../../src/swim/message-size.js';

describe('MemberDirectory', () => {
  it('hands a released id to the next new name, with its address and size', () => {
    const directory = new MemberDirectory();
    const a = directory.intern('a', 'a:1');
    const b = directory.intern('b', 'b:1');
    expect(directory.intern('a', 'other:1')).toBe(a); // interned already: the address stays
    directory.release(a);
    directory.release(a); // twice: no double entry in the free list
    expect(directory.find('a')).toBeUndefined();
    const c = directory.intern('ccc', 'c:1');
    expect(c).toBe(a);
    expect([directory.nameOf(c), directory.addressOf(c), directory.nameAndAddressBytes(c)]).toEqual([
      'ccc',
      'c:1',
      strBytes('ccc') + strBytes('c:1'),
    ]);
    expect(directory.intern('d', 'd:1')).toBe(2);
    expect(directory.size).toBe(3);
    expect(directory.find('b')).toBe(b);
  });
});

describe('MemberDirectory: a released id', () => {
  it('reads as the empty name and address until it is handed out again; releasing an unknown id does nothing', () => {
    const directory = new MemberDirectory();
    const a = directory.intern('a', 'a:1');
    directory.release(a);
    expect([directory.nameOf(a), directory.addressOf(a), directory.size]).toEqual(['', '', 1]);
    directory.release(5); // never handed out
    expect(directory.intern('b', 'b:1')).toBe(a);
    expect(directory.size).toBe(1);
  });
});
