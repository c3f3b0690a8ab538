/**
 * The node's `wire` and `memberlist` options: what they resolve to, and every error, with its code, the
 * option it names and the value it received in the message (messages written out by hand).
 */
import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors.js';
import { createNode } from '../../src/node/node.js';
import type { NodeOptions } from '../../src/node/node-options.js';
import { resolveWireOptions } from '../../src/node/wire-options.js';
import { thrown } from '../support/node-harness.js';

type WireInput = Parameters<typeof resolveWireOptions>[1];

function refusal(options: WireInput): InvalidOptionError {
  const error = thrown(() => resolveWireOptions('createNode', options));
  expect(error).toBeInstanceOf(InvalidOptionError);
  return error as InvalidOptionError;
}

describe('resolveWireOptions: what is accepted', () => {
  it('is fdkit’s own wire by default and when asked for', () => {
    expect(resolveWireOptions('createNode', {})).toEqual({ kind: 'fdkit' });
    expect(resolveWireOptions('createNode', { wire: 'fdkit', bind: 'node.example:7946' })).toEqual({
      kind: 'fdkit',
    });
  });

  it('gives memberlist’s wire memberlist’s default vector, and no compression, unless told otherwise', () => {
    expect(resolveWireOptions('createNode', { wire: 'memberlist' })).toEqual({
      kind: 'memberlist',
      vsn: Uint8Array.of(1, 5, 2, 0, 0, 0),
      compress: false,
    });
    expect(
      resolveWireOptions('createNode', {
        wire: 'memberlist',
        bind: '0.0.0.0:7946',
        advertise: '[2001:db8::1]:7946',
        memberlist: { compress: true, delegateVersions: { min: 2, max: 4, current: 3 } },
      }),
    ).toEqual({ kind: 'memberlist', vsn: Uint8Array.of(1, 5, 2, 2, 4, 3), compress: true });
  });
});

describe('resolveWireOptions: every error', () => {
  it.each([
    ['tcp', '"tcp" (a string)'],
    [1, '1 (a number)'],
    [{}, 'an object'],
  ])('wire %j', (wire, received) => {
    const error = refusal({ wire: wire as never });
    expect(error).toMatchObject({ code: 'FDKIT_INVALID_OPTION', option: 'wire' });
    expect(error.message).toBe(`createNode: option wire must be 'fdkit' or 'memberlist', got ${received}`);
  });

  it('memberlist without wire: memberlist', () => {
    const implicit = refusal({ memberlist: { compress: true } });
    expect(implicit).toMatchObject({ code: 'FDKIT_INVALID_OPTION', option: 'memberlist' });
    expect(implicit.message).toBe(
      "createNode: option memberlist needs wire: 'memberlist', got wire undefined",
    );
    expect(refusal({ wire: 'fdkit', memberlist: {} }).message).toBe(
      `createNode: option memberlist needs wire: 'memberlist', got wire "fdkit" (a string)`,
    );
  });

  it('a transport of one’s own under memberlist’s wire', () => {
    const error = refusal({ wire: 'memberlist', transport: { send: () => {} } });
    expect(error).toMatchObject({ code: 'FDKIT_INVALID_OPTION', option: 'transport' });
    expect(error.message).toBe(
      "createNode: option transport cannot be combined with wire: 'memberlist', which needs fdkit's own UDP/TCP transport, got an object",
    );
  });

  it.each(['advertise', 'bind'] as const)('%s by host name under memberlist’s wire', (key) => {
    const error = refusal({ wire: 'memberlist', [key]: 'node-1.example:7946' });
    expect(error).toMatchObject({ code: 'FDKIT_INVALID_OPTION', option: key });
    expect(error.message).toBe(
      `createNode: with wire: 'memberlist', option ${key} must have an IP address (memberlist carries no host names), got "node-1.example:7946" (a string)`,
    );
  });

  it.each([
    [5, '5 (a number)'],
    ['yes', '"yes" (a string)'],
    [true, 'true (a boolean)'],
  ])('memberlist %j', (memberlist, received) => {
    const error = refusal({ wire: 'memberlist', memberlist: memberlist as never });
    expect(error).toMatchObject({ code: 'FDKIT_INVALID_OPTION', option: 'memberlist' });
    expect(error.message).toBe(`createNode: option memberlist must be an object, got ${received}`);
  });

  it('an unknown key of memberlist', () => {
    const error = refusal({ wire: 'memberlist', memberlist: { compression: true } as never });
    expect(error).toMatchObject({ code: 'FDKIT_UNKNOWN_OPTION', option: 'memberlist.compression' });
    expect(error.message).toBe(
      'createNode: unknown option memberlist.compression; known options are delegateVersions, compress',
    );
  });

  it('a null inside memberlist', () => {
    const error = refusal({ wire: 'memberlist', memberlist: { compress: null } as never });
    expect(error).toMatchObject({ code: 'FDKIT_INVALID_OPTION', option: 'memberlist.compress' });
    expect(error.message).toBe(
      'createNode: option memberlist.compress must not be null; leave it out for its default',
    );
  });

  it.each([
    ['yes', '"yes" (a string)'],
    [1, '1 (a number)'],
  ])('memberlist.compress %j', (compress, received) => {
    const error = refusal({ wire: 'memberlist', memberlist: { compress: compress as never } });
    expect(error).toMatchObject({ code: 'FDKIT_INVALID_OPTION', option: 'memberlist.compress' });
    expect(error.message).toBe(`createNode: option memberlist.compress must be a boolean, got ${received}`);
  });

  it.each([
    { min: 1, max: 0, current: 0 },
    { min: 0, max: 300, current: 0 },
    { min: 0, max: 2, current: 3 },
  ])('memberlist.delegateVersions %j', (delegateVersions) => {
    const error = refusal({ wire: 'memberlist', memberlist: { delegateVersions } });
    expect(error).toMatchObject({ code: 'FDKIT_INVALID_OPTION', option: 'memberlist.delegateVersions' });
    expect(error.message).toBe(
      'createNode: option memberlist.delegateVersions must be { min, max, current }, integers 0-255 with min <= current <= max, got an object',
    );
  });
});

describe('createNode checks the wire options', () => {
  it.each<[Partial<NodeOptions>, string]>([
    [{ wire: 'udp' as never }, 'wire'],
    // resolveWireOptions reads null as absent: the node's own options refuse it first.
    [{ wire: null as never }, 'wire'],
    [{ memberlist: {} }, 'memberlist'],
    [{ wire: 'memberlist', bind: 'localhost:0' }, 'bind'],
    [{ wire: 'memberlist', memberlist: { compress: 'no' as never } }, 'memberlist.compress'],
  ])('%j is refused, naming %s', (options, option) => {
    const error = thrown(() => createNode({ bind: '127.0.0.1:0', ...options }));
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect(error).toMatchObject({ option });
    expect((error as Error).message).toMatch(/^createNode: /);
  });
});
