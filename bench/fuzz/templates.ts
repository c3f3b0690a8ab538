/**
 * Valid messages to start from: one of every packet type, about the target cluster's real members, both
 * as encoded bytes (`encodePacket`, the members' own encoder) and as the raw MessagePack fields the wire
 * lays out (src/wire/tags.ts), which the structural mutations rearrange. Forged senders and subjects are
 * real member names, so that a mutation that slips through would change a view the run watches.
 */
import { Packr } from 'msgpackr';
import type { Random } from '../../src/runtime/random.js';
import type { Packet, Update } from '../../src/swim/messages.js';
import { encodeCompound } from '../../src/wire/compound.js';
import { encodePacket } from '../../src/wire/encode.js';

const packr = new Packr({ useRecords: false, moreTypes: false, structuredClone: false });

/** Any value as plain MessagePack, including what the encoder refuses to write. */
export function pack(value: unknown): Uint8Array {
  return Uint8Array.from(packr.pack(value));
}

/** The cluster as the fuzzer knows it: names, addresses, and each member's incarnation as last seen. */
export interface TargetView {
  readonly names: readonly string[];
  readonly addresses: readonly string[];
  readonly incarnations: readonly number[];
}

function pick<T>(random: Random, list: readonly T[]): T {
  return list[random.int(list.length)]!;
}

/** A few valid updates about real members, at the incarnations held (so never a jump). */
export function validUpdates(random: Random, view: TargetView): Update[] {
  const i = random.int(view.names.length);
  const name = view.names[i]!;
  const from = pick(random, view.names);
  const incarnation = view.incarnations[i]!;
  const all: Update[] = [
    { kind: 'alive', name, address: view.addresses[i]!, incarnation, meta: new Uint8Array(0) },
    { kind: 'suspect', name, incarnation: Math.max(0, incarnation - 1), from },
    { kind: 'dead', name, incarnation: Math.max(0, incarnation - 1), from },
    { kind: 'user', origin: from, seq: random.int(1000), payload: Uint8Array.of(1, 2, 3) },
  ];
  return all.slice(0, random.int(all.length + 1));
}

/** One valid packet of every type, with updates (stale ones, which change nothing when believed). */
export function validPackets(random: Random, view: TargetView, target: string): Packet[] {
  const from = pick(random, view.names);
  const updates = validUpdates(random, view);
  const seq = random.int(2 ** 32);
  const other = pick(random, view.names);
  const otherAddress = view.addresses[view.names.indexOf(other)]!;
  return [
    { type: 'ping', seq, from, target, updates },
    { type: 'ping-req', seq, from, target: other, targetAddress: otherAddress, nack: true, updates },
    { type: 'ack', seq, from, updates },
    { type: 'nack', seq, from, updates },
    { type: 'gossip', from, updates },
    { type: 'user', from, payload: Uint8Array.of(9, 9), updates },
    {
      type: 'conflict',
      from,
      name: other,
      holderAddress: otherAddress,
      otherAddress: '127.0.0.1:9',
      updates,
    },
    { type: 'name-query', from, name: other, updates },
  ];
}

/** The bytes of one valid packet, or of a compound of a few. */
export function validDatagram(random: Random, view: TargetView, target: string): Uint8Array {
  const packets = validPackets(random, view, target);
  if (random.int(8) === 0)
    return encodeCompound(packets.slice(0, 2 + random.int(packets.length - 1))).slice();
  return encodePacket(pick(random, packets)).slice();
}
