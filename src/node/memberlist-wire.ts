/**
 * The node's I/O in memberlist's wire format (`wire: 'memberlist'`, docs/memberlist-wire.md), between
 * the unchanged core and the transport:
 * - to a member not known to speak fdkit, every packet and stream goes as memberlist's messages
 *   (`wire/memberlist/to-memberlist.ts`), and what memberlist has no message for is not sent;
 * - to a member known to speak fdkit (`peer-kinds.ts`), datagrams go in fdkit's own format inside
 *   memberlist's envelope (label, encryption), so that fdkit's additions keep working between them;
 * - streams are memberlist's everywhere (a push-pull is answered on its own connection), except the
 *   watch of fdkit's death watch, which is only ever opened to fdkit members.
 */

import type { Watch, WatchEnd } from '../membership/connection.js';
import { ALIVE } from '../membership/member-state.js';
import type { Logger } from '../runtime/logger.js';
import type { MemberDirectory } from '../swim/directory.js';
import type { Packet, PushPull, StreamMessage, SuspectUpdate } from '../swim/messages.js';
import { JOIN_REFUSAL_CODES, type JoinRefusalCode } from '../swim/refusal.js';
import { addressPrefix, parseAddress } from '../transport/address.js';
import type { Transport } from '../transport/transport.js';
import { decodeDatagram } from '../wire/decode.js';
import { countDrop, type DropCounters, type Rejection } from '../wire/drop-reason.js';
import { encodePacket } from '../wire/encode.js';
import {
  type MlReceiver,
  packetsFromMl,
  probeFromMl,
  pushPullFromMl,
} from '../wire/memberlist/from-memberlist.js';
import { toIpPort } from '../wire/memberlist/ip-address.js';
import { PEER_KINDS_MAX, PeerKinds } from '../wire/memberlist/peer-kinds.js';
import { FDKIT_MARK, type MlSender, packetToMl, streamToMl } from '../wire/memberlist/to-memberlist.js';
import type { MlPacketMessage, MlStreamMessage } from '../wire/memberlist/types.js';
import { VersionBook } from '../wire/memberlist/versions.js';
import { DatagramBatcher } from './datagram-batcher.js';

/** What a datagram held once memberlist's envelope was opened. */
export type MlOpenedDatagram =
  | {
      readonly ok: true;
      readonly kind: 'messages';
      readonly messages: readonly MlPacketMessage[];
      /** Why each compound part that did not decode was dropped. */
      readonly rejected: readonly Rejection[];
    }
  | { readonly ok: true; readonly kind: 'inner'; readonly inner: Uint8Array };

/** memberlist's codec, with this member's envelope (label, keys, compression) bound in. */
export interface MlCodec {
  openDatagram(bytes: Uint8Array): MlOpenedDatagram | Rejection;
  /** Wraps one datagram's payload (a message, a compound, or fdkit's own bytes) in the envelope. */
  sealDatagram(payload: Uint8Array, crc: boolean): Uint8Array;
  encodeMessage(message: MlPacketMessage): Uint8Array;
  /** memberlist's compounds of encoded messages, each within `budgetBytes`. */
  packCompound(parts: Uint8Array[], budgetBytes: number): Uint8Array[];
  /** A whole stream message; `accepted` on the side that accepted the connection (a label header leads). */
  openStream(
    bytes: Uint8Array,
    accepted: boolean,
  ): { readonly ok: true; readonly message: MlStreamMessage } | Rejection;
  /** `message` for a stream; `dialing` on the side that opened the connection (it sends the label header). */
  sealStream(message: MlStreamMessage, dialing: boolean): Uint8Array;
}

/** The core, as far as the wire needs it. */
export interface MlCorePort {
  readonly name: string;
  readonly directory: MemberDirectory;
  handlePacket(fromAddress: string, packet: Packet): void;
  handleStream(fromAddress: string, message: StreamMessage): void;
}

/** The node's side: decoding with counted drops, logging, and streams sent with their replies. */
export interface MlWireHost {
  readonly log: Logger;
  readonly drops: DropCounters;
  /** Decodes `bytes`, counting and logging a rejection, and hands on what decoded. */
  receive<R extends { readonly ok: true }>(
    what: 'datagram' | 'stream',
    bytes: Uint8Array,
    from: string,
    decode: (bytes: Uint8Array) => R | Rejection,
    handle: (decoded: R) => void,
  ): void;
  /**
   * Sends a stream message (a seed given by name resolved first) and hands each reply to `onReply`;
   * resolves with undefined once sent, else with why not.
   */
  exchange(
    address: string,
    payload: Uint8Array,
    onReply: (address: string, reply: Uint8Array) => void,
  ): Promise<string | undefined>;
}

/** The one stream message the core is answering on an inbound connection, and where the answer goes. */
interface Answering {
  readonly expects: 'push-pull' | 'ack';
  readonly seq: number;
  readonly reply: (bytes: Uint8Array) => void;
}

const DONE: Promise<string | undefined> = Promise.resolve(undefined);
/**
 * The sequence number of a greeting: a marked ping to a member this member has just heard of, whose
 * answer says whether it speaks fdkit, so that the death watch can take it in at once rather than when
 * a probe happens to reach it. Its ack is this wire's, never the core's (whose numbers reach it only
 * after 2^32 − 1 probes, and then pass).
 */
export const GREETING_SEQ = 0xffff_ffff;
/** Refused suspicions remembered as forwarded; cleared when full (a repeat costs one datagram each). */
const FORWARDED_MAX = 4096;
const NO_WATCH: Watch = { cancel: () => {} };

/** A memberlist member's I/O around one core. */
export class MemberlistWire {
  readonly kinds = new PeerKinds();
  private readonly versions: VersionBook;
  private readonly sender: MlSender;
  private readonly receiver: MlReceiver;
  private readonly native: DatagramBatcher;
  private readonly foreign: DatagramBatcher;
  private answering: Answering | undefined;
  private readonly lastNameAt = new Map<string, string>();
  /** Addresses greeted already, so that each is greeted once (bounded: cleared when it fills). */
  private readonly greeted = new Set<string>();
  /** Refused suspicions forwarded to the fdkit members already (see `forwardRefusal`). */
  private readonly forwarded = new Set<string>();

  constructor(
    private readonly core: MlCorePort,
    private readonly transport: Transport,
    private readonly codec: MlCodec,
    private readonly host: MlWireHost,
    ownVersions: Uint8Array,
    packetBytesMax: number,
  ) {
    this.versions = new VersionBook(ownVersions);
    const self = toIpPort(transport.localAddress);
    // The node's options make sure of it: memberlist carries an IP address, not a name.
    if (self === undefined)
      throw new Error(`memberlist's wire needs an IP address, not ${transport.localAddress}`);
    this.sender = { name: core.name, self, versions: this.versions };
    this.receiver = {
      nameAt: (address) => this.nameAt(address),
      addressOf: (name) => {
        const id = core.directory.find(name);
        return id === undefined ? undefined : core.directory.addressOf(id);
      },
      versions: this.versions,
    };
    this.native = new DatagramBatcher(
      (address, datagram) => transport.sendDatagram(address, codec.sealDatagram(datagram, false)),
      packetBytesMax,
    );
    this.foreign = new DatagramBatcher(
      (address, datagram) =>
        transport.sendDatagram(address, codec.sealDatagram(datagram, this.crcFor(address))),
      packetBytesMax,
      undefined,
      (parts, budget) => codec.packCompound(parts, budget),
    );
  }

  /** Sends what is batched (before the transport closes). */
  flush(): void {
    this.native.flush();
    this.foreign.flush();
  }

  /** A packet of the core's, in the format its receiver reads. */
  sendPacket(address: string, packet: Packet): void {
    if (this.kinds.isFdkit(address)) {
      this.native.add(address, encodePacket(packet));
      return;
    }
    for (const update of packet.updates)
      if (update.kind === 'suspect' && update.refused) this.forwardRefusal(update);
    try {
      for (const message of packetToMl(packet, this.sender)) {
        this.foreign.add(address, this.codec.encodeMessage(message));
      }
    } catch (error) {
      // A field memberlist cannot carry (the core checks what it sends against fdkit's own bounds):
      // not sent, and said, rather than thrown into the core's turn.
      this.host.log.warn(
        { address, type: packet.type, error: String(error) },
        'not sent in memberlist format',
      );
    }
  }

  /**
   * A stream message of the core's: the answer to the inbound connection being handled when it is the
   * one expected there, else memberlist's message on a connection of its own, whose reply is handled
   * as the answer it is.
   */
  sendStream(address: string, message: StreamMessage): Promise<string | undefined> {
    const ml = streamToMl(message, this.sender);
    if (ml === undefined) return DONE;
    const answering = this.answering;
    const answer = answering !== undefined && this.answers(answering, message);
    let bytes: Uint8Array;
    try {
      bytes = this.codec.sealStream(ml, !answer);
    } catch (error) {
      this.host.log.warn(
        { address, type: message.type, error: String(error) },
        'not sent in memberlist format',
      );
      return Promise.resolve(`not sent in memberlist format: ${String(error)}`);
    }
    if (answer) {
      this.answering = undefined;
      answering!.reply(bytes);
      return DONE;
    }
    return this.host.exchange(address, bytes, (from, reply) => this.receiveReply(from, reply));
  }

  /** A watch of the death watch: opened once `address` is known to hold an fdkit member, never to another. */
  watch(address: string, onEnd: (reason: WatchEnd) => void): Watch {
    const open = this.transport.watch;
    if (open === undefined) return NO_WATCH;
    let inner: Watch | undefined;
    let cancelled = false;
    const stopWaiting = this.kinds.whenFdkit(address, () => {
      if (!cancelled) inner = open.call(this.transport, address, onEnd);
    });
    return {
      cancel: () => {
        cancelled = true;
        stopWaiting();
        inner?.cancel();
      },
    };
  }

  /** An inbound datagram. */
  receiveDatagram(bytes: Uint8Array, from: string): void {
    this.host.receive(
      'datagram',
      bytes,
      from,
      (b) => this.codec.openDatagram(b),
      (opened) => {
        if (opened.kind === 'inner') {
          this.receiveNative(opened.inner, from);
          return;
        }
        for (const rejection of opened.rejected) countDrop(this.host.drops, rejection.reason);
        this.receiveForeign(opened.messages, from);
      },
    );
  }

  /** An inbound stream message; `reply` answers on its connection. */
  receiveStream(bytes: Uint8Array, from: string, reply: ((bytes: Uint8Array) => void) | undefined): void {
    this.host.receive(
      'stream',
      bytes,
      from,
      (b) => this.codec.openStream(b, true),
      ({ message }) => this.handleStream(message, from, reply),
    );
  }

  private handleStream(
    message: MlStreamMessage,
    from: string,
    reply: ((bytes: Uint8Array) => void) | undefined,
  ): void {
    switch (message.type) {
      case 'push-pull': {
        const pushPull = pushPullFromMl(message, false, hostOf(from), this.receiver);
        this.answer(reply, 'push-pull', 0, () => this.core.handleStream(from, pushPull));
        this.greetAll(pushPull);
        return;
      }
      case 'ping':
        if (message.fdkit === undefined) this.markSourceMemberlist(message);
        this.answer(reply, 'ack', message.seqNo, () =>
          this.core.handleStream(from, probeFromMl(message, this.nameAt(from) ?? '')),
        );
        return;
      case 'user':
        this.core.handlePacket(from, {
          type: 'user',
          // memberlist's reliable message names nobody and comes from an ephemeral port.
          from: this.onlyNameAtHost(from) ?? '',
          payload: message.payload,
          updates: [],
        });
        return;
      case 'err':
        this.host.log.debug({ from, error: message.error }, 'memberlist error response');
        return;
      case 'ack':
        // An ack comes back on the connection of the ping it answers, as a reply, never on its own.
        countDrop(this.host.drops, 'unknown-type');
        return;
    }
  }

  private answer(
    reply: ((bytes: Uint8Array) => void) | undefined,
    expects: Answering['expects'],
    seq: number,
    handle: () => void,
  ): void {
    this.answering = reply === undefined ? undefined : { expects, seq, reply };
    try {
      handle();
    } finally {
      this.answering = undefined;
    }
  }

  private answers(answering: Answering, message: StreamMessage): boolean {
    if (answering.expects === 'push-pull') {
      return (message.type === 'push-pull' && message.reply) || message.type === 'refuse';
    }
    return message.type === 'ack' && message.seq === answering.seq;
  }

  /** The reply read back on a connection this member opened. */
  private receiveReply(address: string, bytes: Uint8Array): void {
    this.host.receive(
      'stream',
      bytes,
      address,
      (b) => this.codec.openStream(b, false),
      ({ message }) => {
        switch (message.type) {
          case 'push-pull': {
            const pushPull = pushPullFromMl(message, true, hostOf(address), this.receiver);
            this.core.handleStream(address, pushPull);
            this.greetAll(pushPull);
            return;
          }
          case 'ack':
            this.core.handleStream(address, probeFromMl(message, this.nameAt(address) ?? ''));
            return;
          case 'err': {
            // An fdkit seed's refusal travels as memberlist's error response, its code first.
            const refusal = refusalOf(message.error);
            if (refusal !== undefined)
              this.core.handleStream(address, { type: 'refuse', from: '', ...refusal });
            else this.host.log.debug({ address, error: message.error }, 'memberlist error response');
            return;
          }
          default:
            countDrop(this.host.drops, 'unknown-type');
        }
      },
    );
  }

  private receiveNative(inner: Uint8Array, from: string): void {
    const decoded = decodeDatagram(inner);
    if (!decoded.ok) {
      countDrop(this.host.drops, decoded.reason);
      this.host.log.debug({ from, reason: decoded.reason, detail: decoded.detail }, 'dropped datagram');
      return;
    }
    this.kinds.markFdkit(from, decoded.packets[0]?.from);
    for (const packet of decoded.packets) {
      if (packet.type === 'ack' && packet.seq === GREETING_SEQ) continue;
      for (const update of packet.updates)
        if (update.kind === 'alive') this.greet(update.name, update.address);
      this.core.handlePacket(from, packet);
    }
  }

  private receiveForeign(messages: readonly MlPacketMessage[], from: string): void {
    const lead = messages[0];
    if (lead !== undefined && (lead.type === 'ping' || lead.type === 'indirect-ping')) {
      if (lead.fdkit === FDKIT_MARK) this.kinds.markFdkit(from, lead.sourceNode);
      else this.kinds.markMemberlist(from, lead.sourceNode);
    }
    for (const packet of packetsFromMl(messages, from, this.receiver)) {
      if (packet.type === 'ack' && packet.seq === GREETING_SEQ) continue;
      for (const update of packet.updates)
        if (update.kind === 'alive') this.greet(update.name, update.address);
      this.core.handlePacket(from, packet);
    }
  }

  /**
   * A refused connection is evidence only fdkit members use, and memberlist's suspect has no field for
   * it: when a suspicion carrying one goes to a member not known to speak fdkit, the mark would be lost
   * on the gossip's random targets. It goes, once, to every fdkit member known instead, so that the
   * watchers of a killed fdkit member see each other's refusals and convict together.
   */
  private forwardRefusal(update: SuspectUpdate): void {
    const key = `${update.name}\u0000${update.incarnation}\u0000${update.from}`;
    if (this.forwarded.has(key)) return;
    if (this.forwarded.size >= FORWARDED_MAX) this.forwarded.clear();
    this.forwarded.add(key);
    const bytes = encodePacket({ type: 'gossip', from: this.core.name, updates: [update] });
    for (const address of this.kinds.fdkitAddresses()) this.native.add(address, bytes);
  }

  /** Greets the live members of a state exchange. */
  private greetAll(pushPull: PushPull): void {
    const { names, addresses, states } = pushPull.members;
    for (let i = 0; i < names.length; i++) if (states[i] === ALIVE) this.greet(names[i]!, addresses[i]!);
  }

  /** Greets a member heard of at `address` whose kind is not known yet (see {@link GREETING_SEQ}). */
  private greet(name: string, address: string): void {
    if (name === this.core.name) return;
    // A port reused by another member (a restart, under either implementation): what was learnt of the
    // old one says nothing of the new, and memberlist's format is safe until the new one is heard.
    const learnt = this.kinds.learntFrom(address);
    if (learnt !== undefined && learnt !== name) this.kinds.forget(address);
    else if (this.kinds.isKnown(address)) return;
    const key = `${name}\u0000${address}`;
    if (this.greeted.has(key)) return;
    if (this.greeted.size >= PEER_KINDS_MAX) this.greeted.clear();
    this.greeted.add(key);
    this.sendPacket(address, {
      type: 'ping',
      seq: GREETING_SEQ,
      from: this.core.name,
      target: name,
      updates: [],
    });
  }

  private markSourceMemberlist(ping: { readonly sourceNode?: string }): void {
    const name = ping.sourceNode;
    if (name === undefined) return;
    const address = this.receiver.addressOf(name);
    if (address !== undefined) this.kinds.markMemberlist(address, name);
  }

  /** The one member held at `address`'s IP, whatever its port; undefined for none or several. */
  private onlyNameAtHost(address: string): string | undefined {
    const host = hostOf(address);
    if (host === undefined) return undefined;
    const prefix = addressPrefix(host);
    const { directory } = this.core;
    let found: string | undefined;
    for (let id = 0; id < directory.size; id++) {
      const name = directory.nameOf(id);
      if (name === '' || name === this.core.name || !directory.addressOf(id).startsWith(prefix)) continue;
      if (found !== undefined) return undefined;
      found = name;
    }
    return found;
  }

  /** memberlist adds a CRC for members that understand protocol 5. */
  private crcFor(address: string): boolean {
    const name = this.nameAt(address);
    return name !== undefined && this.versions.protocolMaxOf(name) >= 5;
  }

  /** The member held at `address`: the last answer if it still holds, else a scan of the directory. */
  private nameAt(address: string): string | undefined {
    const { directory } = this.core;
    const last = this.lastNameAt.get(address);
    if (last !== undefined) {
      const id = directory.find(last);
      if (id !== undefined && directory.addressOf(id) === address) return last;
      this.lastNameAt.delete(address);
    }
    for (let id = 0; id < directory.size; id++) {
      if (directory.addressOf(id) !== address) continue;
      const name = directory.nameOf(id);
      if (name === '') continue;
      if (this.lastNameAt.size >= directory.size + 64) this.lastNameAt.clear();
      this.lastNameAt.set(address, name);
      return name;
    }
    return undefined;
  }
}

/** The refusal an fdkit member wrote as `CODE: reason` (`to-memberlist.ts`), or undefined for another error. */
function refusalOf(error: string): { code: JoinRefusalCode; reason: string } | undefined {
  const colon = error.indexOf(': ');
  if (colon < 0) return undefined;
  const code = JOIN_REFUSAL_CODES.find((c) => c === error.slice(0, colon));
  return code === undefined ? undefined : { code, reason: error.slice(colon + 2) };
}

function hostOf(address: string): string | undefined {
  try {
    return parseAddress(address).host;
  } catch {
    return undefined;
  }
}
