/**
 * fdkit's messages as memberlist's, for members that speak only memberlist (or are not yet known to speak
 * fdkit). What memberlist has no message for is left out, never sent as something it cannot read:
 * - a conflict notice and a name query (fdkit's name-conflict protocol) go as their piggybacked updates
 *   alone;
 * - a suspicion's `refused` mark (the accuser's connection was refused) is dropped: memberlist's suspect
 *   has no field for it;
 * - a user broadcast loses its origin and sequence: memberlist delivers every copy it receives, and its
 *   applications deduplicate on their own (Serf's Lamport clocks);
 * - a join refusal becomes memberlist's error response, whose text the joiner logs.
 */
import { DEAD, LEFT } from '../../membership/member-state.js';
import type { Packet, StreamMessage, Update } from '../../swim/messages.js';
import { type IpPort, toIpPort } from './ip-address.js';
import type { MlNodeState, MlPacketMessage, MlStreamMessage } from './types.js';
import type { VersionBook } from './versions.js';

const EMPTY = new Uint8Array(0);
/** The value of fdkit's mark: its wire format's version (`WIRE_VERSION`), which a reader may check. */
export const FDKIT_MARK = 1;

/** What translating needs of the member that sends. */
export interface MlSender {
  /** This member's name. */
  readonly name: string;
  /** Where this member is reached, as memberlist carries it (the source of its pings). */
  readonly self: IpPort;
  /** The version vectors of the members an alive statement is about. */
  readonly versions: VersionBook;
}

/**
 * An update as memberlist's message; undefined for an alive statement whose address it cannot carry, and
 * for a busy statement, which memberlist does not have.
 */
export function updateToMl(update: Update, versions: VersionBook): MlPacketMessage | undefined {
  switch (update.kind) {
    case 'alive': {
      const at = toIpPort(update.address);
      if (at === undefined) return undefined;
      return {
        type: 'alive',
        incarnation: update.incarnation,
        node: update.name,
        addr: at.ip,
        port: at.port,
        meta: update.meta,
        vsn: versions.vectorOf(update.name),
      };
    }
    case 'suspect':
      return { type: 'suspect', incarnation: update.incarnation, node: update.name, from: update.from };
    case 'dead':
      return { type: 'dead', incarnation: update.incarnation, node: update.name, from: update.from };
    case 'user':
      return { type: 'user', payload: update.payload };
    case 'busy':
      // memberlist has no such statement; a Go member keeps its own Lifeguard score instead.
      return undefined;
  }
}

/**
 * The memberlist messages of one packet, the leading one first (ping, indirect ping, ack, nack or user
 * message), then its piggybacked updates. `target` is the address the packet goes to: an indirect ping
 * names its target by address.
 */
export function packetToMl(packet: Packet, sender: MlSender): MlPacketMessage[] {
  const out: MlPacketMessage[] = [];
  const { self } = sender;
  switch (packet.type) {
    case 'ping':
      out.push({
        type: 'ping',
        seqNo: packet.seq,
        node: packet.target,
        sourceAddr: self.ip,
        sourcePort: self.port,
        sourceNode: sender.name,
        fdkit: FDKIT_MARK,
      });
      break;
    case 'ping-req': {
      const target = toIpPort(packet.targetAddress);
      if (target === undefined) break;
      out.push({
        type: 'indirect-ping',
        seqNo: packet.seq,
        target: target.ip,
        port: target.port,
        node: packet.target,
        nack: packet.nack,
        sourceAddr: self.ip,
        sourcePort: self.port,
        sourceNode: sender.name,
        fdkit: FDKIT_MARK,
      });
      break;
    }
    case 'ack':
      out.push({ type: 'ack', seqNo: packet.seq, payload: EMPTY });
      break;
    case 'nack':
      out.push({ type: 'nack', seqNo: packet.seq });
      break;
    case 'user':
      out.push({ type: 'user', payload: packet.payload });
      break;
    case 'gossip':
    case 'conflict':
    case 'name-query':
      break;
  }
  for (const update of packet.updates) {
    const message = updateToMl(update, sender.versions);
    if (message !== undefined) out.push(message);
  }
  return out;
}

/** A stream message as memberlist's; undefined when memberlist has none for it. */
export function streamToMl(message: StreamMessage, sender: MlSender): MlStreamMessage | undefined {
  switch (message.type) {
    case 'push-pull': {
      const { names, addresses, incarnations, states, metas } = message.members;
      const nodes: MlNodeState[] = [];
      for (let i = 0; i < names.length; i++) {
        const at = toIpPort(addresses[i]!);
        if (at === undefined) continue;
        const name = names[i]!;
        nodes.push({
          name,
          addr: at.ip,
          port: at.port,
          meta: metas[i] ?? EMPTY,
          incarnation: incarnations[i]!,
          // memberlist before 0.3 has no left state: a leave is a death stated by the member itself.
          state: states[i] === LEFT ? DEAD : states[i]!,
          vsn: sender.versions.vectorOf(name),
        });
      }
      return {
        type: 'push-pull',
        join: message.join,
        nodes,
        userState: message.state ?? EMPTY,
        fdkit: FDKIT_MARK,
        fdkitFrom: sender.name,
      };
    }
    case 'ping':
      return {
        type: 'ping',
        seqNo: message.seq,
        node: message.target,
        sourceAddr: sender.self.ip,
        sourcePort: sender.self.port,
        sourceNode: sender.name,
        fdkit: FDKIT_MARK,
      };
    case 'ack':
      return { type: 'ack', seqNo: message.seq, payload: EMPTY };
    case 'refuse':
      return { type: 'err', error: `${message.code}: ${message.reason}` };
  }
}
