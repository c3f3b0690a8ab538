/**
 * The datagram mix of one run, by mode. The same seed gives the same datagrams in the same order.
 * - `plain`: members without a keyring; everything is sent as made.
 * - `keyring`: members share a key the fuzzer does not have; everything is sent as made, so the members
 *   must drop all of it but the replays of their own sealed datagrams, as `not-encrypted` when the bytes
 *   do not start like a sealed message (version byte 1, at least 29 bytes: docs/design.md, "Wire") and
 *   as `decrypt-failed` when they do.
 * - `keyholder` (labelled: not an attacker without the key): the fuzzer seals everything with the
 *   members' key, to show what valid-but-forged content does behind the encryption.
 * In every mode one datagram in twelve is a valid packet sealed under another key.
 */
import type { Random } from '../../src/runtime/random.js';
import { DATAGRAM_BYTES_MAX } from '../../src/wire/limits.js';
import { SEAL_OVERHEAD_BYTES, type Sealer } from '../../src/wire/seal.js';
import { forgedDatagram, replayed } from './forged.js';
import { byteMutation, type Crafted, randomDatagram, structuralMutation } from './mutations.js';
import type { TargetView } from './templates.js';
import { validDatagram } from './templates.js';

export type FuzzMode = 'plain' | 'keyring' | 'keyholder';

/** What a member with a keyring must count a datagram it cannot open as, from its first bytes. */
export function keyringDropReason(bytes: Uint8Array): 'not-encrypted' | 'decrypt-failed' {
  return bytes.length >= 29 && bytes[0] === 1 ? 'decrypt-failed' : 'not-encrypted';
}

export interface MixContext {
  readonly random: Random;
  readonly mode: FuzzMode;
  readonly view: TargetView;
  readonly captured: readonly Uint8Array[];
  /** Seals under a key no member has. */
  readonly stranger: Sealer;
  /** Seals under the members' key (`keyholder` mode only). */
  readonly keyholder: Sealer | undefined;
}

/** The next few datagrams (one, or a burst of duplicates) for member `target` (its name). */
export function nextDatagrams(ctx: MixContext, target: string, counter: number): Crafted[] {
  const { random, view } = ctx;
  const r = random.int(96);
  let made: Crafted[];
  if (r < 24) made = [randomDatagram(random, counter)];
  else if (r < 44) made = [byteMutation(random, view, target)];
  else if (r < 68) made = [structuralMutation(random, view, target)];
  else if (r < 80) made = [forgedDatagram(random, view)];
  else if (r < 88) made = replayed(random, ctx.captured);
  else {
    const plain =
      random.int(2) === 0 ? validDatagram(random, view, target) : forgedDatagram(random, view).bytes;
    made = [{ kind: 'sealed-wrong-key', bytes: ctx.stranger.seal(plain), invalid: true }];
  }
  if (made.length === 0) made = [randomDatagram(random, counter)];
  return made.map((c) => adapt(ctx, c));
}

function adapt(ctx: MixContext, c: Crafted): Crafted {
  const replay = c.kind.startsWith('replay');
  if (ctx.mode === 'keyring') return { ...c, invalid: c.invalid || !replay };
  if (ctx.mode === 'keyholder' && !replay && c.kind !== 'sealed-wrong-key' && ctx.keyholder !== undefined) {
    // The seal's 29 bytes must still fit a datagram: the largest random ones lose their tail.
    return { ...c, bytes: ctx.keyholder.seal(c.bytes.subarray(0, DATAGRAM_BYTES_MAX - SEAL_OVERHEAD_BYTES)) };
  }
  return c;
}
