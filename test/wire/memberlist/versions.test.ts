/** memberlist's version vectors: this member's, checked, and the book of the others'. */
import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../../src/errors.js';
import { ownVersionVector, VersionBook } from '../../../src/wire/memberlist/versions.js';
import { thrown } from '../../support/node-harness.js';

describe('ownVersionVector', () => {
  it('is protocol 1–5 speaking 2, then the delegate’s min, max and current', () => {
    expect([...ownVersionVector('o', { min: 0, max: 0, current: 0 })]).toEqual([1, 5, 2, 0, 0, 0]);
    expect([...ownVersionVector('o', { min: 1, max: 3, current: 2 })]).toEqual([1, 5, 2, 1, 3, 2]);
    expect([...ownVersionVector('o', { min: 255, max: 255, current: 255 })]).toEqual([
      1, 5, 2, 255, 255, 255,
    ]);
  });

  it.each([
    [{ min: 2, max: 3, current: 1 }, 'an object'],
    [{ min: 0, max: 1, current: 2 }, 'an object'],
    [{ min: 0, max: 256, current: 0 }, 'an object'],
    [{ min: -1, max: 0, current: 0 }, 'an object'],
    [{ min: 0, max: 1, current: 0.5 }, 'an object'],
    [{ min: 0, max: Number.NaN, current: 0 }, 'an object'],
    [{ min: '0', max: 0, current: 0 } as never, 'an object'],
    [{ max: 0, current: 0 } as never, 'an object'],
  ])('refuses %j, naming the owner and the option', (delegate, received) => {
    const error = thrown(() => ownVersionVector('createNode', delegate, 'memberlist.delegateVersions'));
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect(error).toMatchObject({ code: 'FDKIT_INVALID_OPTION', option: 'memberlist.delegateVersions' });
    expect((error as Error).message).toBe(
      `createNode: option memberlist.delegateVersions must be { min, max, current }, integers 0-255 with min <= current <= max, got ${received}`,
    );
  });

  it('names `delegateVersions` when no option name is given', () => {
    expect(thrown(() => ownVersionVector('x', { min: 1, max: 0, current: 0 }))).toMatchObject({
      option: 'delegateVersions',
    });
  });
});

describe('VersionBook', () => {
  const own = Uint8Array.of(1, 5, 2, 0, 0, 0);

  it('answers this member’s own vector for a member it has not learnt', () => {
    const book = new VersionBook(own);
    expect([...book.vectorOf('anyone')]).toEqual([1, 5, 2, 0, 0, 0]);
    expect(book.protocolMaxOf('anyone')).toBe(5);
  });

  it('keeps a copy of a learnt vector: a later change of the caller’s bytes does not reach it', () => {
    const book = new VersionBook(own);
    const vsn = Uint8Array.of(1, 4, 3, 7, 9, 8);
    book.learn('go', vsn);
    vsn.fill(0);
    expect([...book.vectorOf('go')]).toEqual([1, 4, 3, 7, 9, 8]);
    expect(book.protocolMaxOf('go')).toBe(4);
    expect([...book.vectorOf('other')]).toEqual([1, 5, 2, 0, 0, 0]);
  });

  it('pads a vector of 3 to 5 bytes with zeros and cuts a longer one to 6', () => {
    const book = new VersionBook(own);
    book.learn('three', Uint8Array.of(1, 3, 2));
    book.learn('five', Uint8Array.of(2, 3, 3, 1, 1));
    book.learn('eight', Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8));
    expect([...book.vectorOf('three')]).toEqual([1, 3, 2, 0, 0, 0]);
    expect([...book.vectorOf('five')]).toEqual([2, 3, 3, 1, 1, 0]);
    expect([...book.vectorOf('eight')]).toEqual([1, 2, 3, 4, 5, 6]);
    expect(book.protocolMaxOf('three')).toBe(3);
  });

  it('ignores a vector shorter than 3 bytes, which says nothing', () => {
    const book = new VersionBook(own);
    book.learn('go', Uint8Array.of(1, 4, 3, 0, 0, 0));
    book.learn('go', Uint8Array.of(1, 2));
    book.learn('go', new Uint8Array(0));
    expect([...book.vectorOf('go')]).toEqual([1, 4, 3, 0, 0, 0]);
  });

  it('takes a member’s newer vector, and forgets it on request', () => {
    const book = new VersionBook(own);
    book.learn('go', Uint8Array.of(1, 4, 3, 0, 0, 0));
    book.learn('go', Uint8Array.of(1, 3, 3, 0, 0, 0));
    expect(book.protocolMaxOf('go')).toBe(3);
    book.forget('go');
    expect([...book.vectorOf('go')]).toEqual([1, 5, 2, 0, 0, 0]);
  });
});
