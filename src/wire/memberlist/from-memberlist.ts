/**
 * memberlist's messages as fdkit's. memberlist names the sender of a ping (SourceNode, from protocol 2)
 * but not of an ack, a nack, gossip or a push-pull: those are attributed by the address they came from,
 * and a push-pull, which comes from an ephemeral port, by the entry of its list at the connection's IP.
 */
import { ALIVE } from '../../membership/member-state.js';
import type { Packet, PushPull, StreamMessage, Update } from '../../swim/messages.js';
import { addressPrefix } from '../../transport/address.js';
import { fromIpPort } from './ip-address.js';
import type { MlNodeState, MlPacketMessage, MlPushPull } from './types.js';
import type { VersionBook } from './versions.js';

/** What translating needs of the member that receives. */
export interface MlReceiver {
  /** The name of the member this member holds at `address`, if any. */
  nameAt(address: string): string | undefined;
  /** Where this member holds `name`, if it knows it. */
  addressOf(name: string): string | undefined;
  /** Where the version vectors that alive statements carry are kept. */
  readonly versions: VersionBook;
}

/** An update of memberlist's, or undefined for one that cannot be read as fdkit's (an address it cannot hold). */
function updateFromMl(message: MlPacketMessage, versions: VersionBook): Update | undefined {
  switch (message.type) {
    case 'alive': {
      const address = fromIpPort(message.addr, message.port);
      if (address === undefined) return undefined;
      versions.learn(message.node, message.vsn);
      return {
        kind: 'alive',
        name: message.node,
        address,
        incarnation: message.incarnation,
        meta: message.meta,
      };
    }
    case 'suspect':
      return { kind: 'suspect', name: message.node, incarnation: message.incarnation, from: message.from };
    case 'dead':
      return { kind: 'dead', name: message.node, incarnation: message.incarnation, from: message.from };
    default:
      return undefined;
  }
}

/**
 * The packets of one datagram's memberlist messages from `fromAddress`: the leading message (ping,
 * indirect ping, ack or nack) carries every update of the datagram, as fdkit piggybacks them; a datagram
 * of updates alone is gossip; each user message is a packet of its own.
 */
export function packetsFromMl(
  messages: readonly MlPacketMessage[],
  fromAddress: string,
  receiver: MlReceiver,
): Packet[] {
  const updates: Update[] = [];
  for (const message of messages) {
    const update = updateFromMl(message, receiver.versions);
    if (update !== undefined) updates.push(update);
  }
  const sender = receiver.nameAt(fromAddress) ?? '';
  const packets: Packet[] = [];
  let carried = false;
  const take = (): readonly Update[] => {
    if (carried) return [];
    carried = true;
    return updates;
  };
  for (const message of messages) {
    switch (message.type) {
      case 'ping':
        packets.push({
          type: 'ping',
          seq: message.seqNo,
          from: message.sourceNode ?? sender,
          target: message.node,
          updates: take(),
        });
        break;
      case 'indirect-ping': {
        const targetAddress = fromIpPort(message.target, message.port);
        if (targetAddress === undefined) break;
        packets.push({
          type: 'ping-req',
          seq: message.seqNo,
          from: message.sourceNode ?? sender,
          target: message.node,
          targetAddress,
          nack: message.nack,
          updates: take(),
        });
        break;
      }
      case 'ack':
        packets.push({ type: 'ack', seq: message.seqNo, from: sender, updates: take() });
        break;
      case 'nack':
        packets.push({ type: 'nack', seq: message.seqNo, from: sender, updates: take() });
        break;
      case 'user':
        packets.push({ type: 'user', from: sender, payload: message.payload, updates: [] });
        break;
      default:
        break;
    }
  }
  if (!carried && updates.length > 0) packets.unshift({ type: 'gossip', from: sender, updates });
  return packets;
}

/**
 * A push-pull of memberlist's as fdkit's, `reply` when it answers one this member sent. `remoteHost` is
 * the connection's remote IP, which tells the sender among the entries when the sender did not name
 * itself (memberlist does not).
 */
export function pushPullFromMl(
  message: MlPushPull,
  reply: boolean,
  remoteHost: string | undefined,
  receiver: MlReceiver,
): PushPull {
  const names: string[] = [];
  const addresses: string[] = [];
  const incarnations: number[] = [];
  const states: number[] = [];
  const metas: Uint8Array[] = [];
  for (const node of message.nodes) {
    const address = fromIpPort(node.addr, node.port);
    if (address === undefined || node.state > 3) continue;
    receiver.versions.learn(node.name, node.vsn);
    names.push(node.name);
    addresses.push(address);
    incarnations.push(node.incarnation);
    states.push(node.state);
    metas.push(node.meta);
  }
  const from = message.fdkitFrom ?? senderOf(message.nodes, message.join, remoteHost, receiver);
  const members = {
    names,
    addresses,
    incarnations: Uint32Array.from(incarnations),
    states: Uint8Array.from(states),
    metas,
  };
  const base = { type: 'push-pull', from, join: message.join, reply, members } as const;
  return message.userState.length === 0 ? base : { ...base, state: message.userState };
}

/**
 * The entry most likely to be the sender's: alive at the connection's IP; for a join, one this member
 * does not know yet; otherwise one it holds at the address listed. Several members may share an IP (one
 * host, several ports), so the guess prefers what is consistent with this member's view: a wrong guess
 * can only make it miss that a joiner's name is taken.
 */
function senderOf(
  nodes: readonly MlNodeState[],
  join: boolean,
  remoteHost: string | undefined,
  receiver: MlReceiver,
): string {
  let fallback: string | undefined;
  const prefix = remoteHost === undefined ? undefined : addressPrefix(remoteHost);
  for (const node of nodes) {
    if (node.state !== ALIVE) continue;
    const address = fromIpPort(node.addr, node.port);
    if (address === undefined) continue;
    if (prefix !== undefined && !address.startsWith(prefix)) continue;
    const held = receiver.addressOf(node.name);
    if (join ? held === undefined : held === address) return node.name;
    fallback ??= node.name;
  }
  return fallback ?? nodes[0]?.name ?? '';
}

/** A stream ping or ack of memberlist's as fdkit's (the fallback probe). */
export function probeFromMl(
  message:
    | { readonly type: 'ping'; readonly seqNo: number; readonly node: string; readonly sourceNode?: string }
    | { readonly type: 'ack'; readonly seqNo: number },
  fromName: string,
): StreamMessage {
  return message.type === 'ping'
    ? {
        type: 'ping',
        seq: message.seqNo,
        from: message.sourceNode ?? fromName,
        target: message.node,
        updates: [],
      }
    : { type: 'ack', seq: message.seqNo, from: fromName, updates: [] };
}
