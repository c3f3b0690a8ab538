/**
 * Valid packets with hostile content, and real packets replayed. The forgeries are what an attacker who
 * can send datagrams but holds no key would send: gossip saying that a live member is dead or suspect at
 * an incarnation far ahead of its own (2^32 − 1, 100 above, 65 above: all beyond the cap of 64 in
 * docs/membership.md, "Forged statements"), within reach of it (1 to 64 above), alive at 2^32 − 1, and
 * about members that do not exist. The replays are datagrams the members sent each other, captured by the
 * target (`cluster-child.ts`): stale by the time they are sent, some sent several times in a row.
 */
import type { Random } from '../../src/runtime/random.js';
import type { Update } from '../../src/swim/messages.js';
import { encodePacket } from '../../src/wire/encode.js';
import type { Crafted } from './mutations.js';
import type { TargetView } from './templates.js';

const TOP = 2 ** 32 - 1;
/** Strangers the forged alive statements introduce: few, so that what they cost a member is bounded. */
const STRANGERS = 16;

/** A forged statement about a member of the cluster, or about a stranger. */
export function forgedDatagram(random: Random, view: TargetView): Crafted {
  const i = random.int(view.names.length);
  const name = view.names[i]!;
  const held = view.incarnations[i]!;
  const from = `mallory-${random.int(4)}`;
  const choice = random.int(10);
  let update: Update;
  let kind: string;
  if (choice < 6) {
    const ahead = [TOP, Math.min(TOP, held + 100), Math.min(TOP, held + 65)][choice % 3]!;
    const accusation = choice < 3 ? 'dead' : 'suspect';
    update = { kind: accusation, name, incarnation: ahead, from };
    kind = `forged-${accusation}-far`;
  } else if (choice === 6) {
    update = { kind: 'dead', name, incarnation: Math.min(TOP, held + 1 + random.int(64)), from };
    kind = 'forged-dead-near';
  } else if (choice === 7) {
    update = { kind: 'alive', name, address: view.addresses[i]!, incarnation: TOP, meta: new Uint8Array(0) };
    kind = 'forged-alive-far';
  } else {
    const stranger = `stranger-${random.int(STRANGERS)}`;
    update = {
      kind: 'alive',
      name: stranger,
      address: '127.0.0.1:9',
      incarnation: 1,
      meta: new Uint8Array(0),
    };
    kind = 'forged-stranger';
  }
  return { kind, bytes: encodePacket({ type: 'gossip', from, updates: [update] }).slice(), invalid: false };
}

/** Replays of captured datagrams: one of them, sent `copies` times (a duplicate when more than one). */
export function replayed(random: Random, captured: readonly Uint8Array[]): Crafted[] {
  if (captured.length === 0) return [];
  const bytes = captured[random.int(captured.length)]!;
  const copies = random.int(4) === 0 ? 2 + random.int(3) : 1;
  const kind = copies > 1 ? 'replay-duplicated' : 'replay-stale';
  return Array.from({ length: copies }, () => ({ kind, bytes, invalid: false }));
}
