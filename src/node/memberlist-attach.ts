/**
 * Puts a core on memberlist's wire: memberlist's codec bound to this member's envelope (label, keyring,
 * compression), the transport built with memberlist's stream framing, and the receivers registered.
 */
import { fillSecureRandom } from '../runtime/system.js';
import { createFramedNetTransport } from '../transport/net-transport.js';
import { TRANSPORT_DEFAULTS, type TransportOptions } from '../transport/options.js';
import type { SeedResolver } from '../transport/resolve.js';
import type { Transport } from '../transport/transport.js';
import { reject } from '../wire/drop-reason.js';
import type { Keyring } from '../wire/keyring.js';
import { encodeMlMessage } from '../wire/memberlist/messages.js';
import { packMlCompound } from '../wire/memberlist/pack.js';
import { decodeMlPacket, encodeMlPacket } from '../wire/memberlist/packet.js';
import { encodeMlStream, MlStreamReader } from '../wire/memberlist/stream.js';
import { memberlistFraming } from '../wire/memberlist/stream-framing.js';
import type { CoreHost } from './core-host.js';
import { MemberlistWire, type MlCodec, type MlCorePort } from './memberlist-wire.js';
import type { NodeOptions } from './node-options.js';
import { sendStreamMessage } from './stream-send.js';

const NO_KEYS: readonly Uint8Array[] = [];

/** What attaching needs from the node. */
export interface MemberlistAttachOptions {
  readonly host: Pick<CoreHost<never, never>, 'log' | 'drops' | 'receive'>;
  readonly resolver: SeedResolver | undefined;
  readonly keyring: Keyring | undefined;
  readonly label: string;
  readonly compress: boolean;
  readonly versions: Uint8Array;
  readonly packetBytesMax: number;
  readonly streamBytesMax: number;
}

/** memberlist's codec with this member's envelope; the keys are read on every message (rotation). */
export function memberlistCodec(
  keyring: Keyring | undefined,
  label: string,
  compress: boolean,
  streamBytesMax: number,
): MlCodec {
  const keys = (): readonly Uint8Array[] => keyring?.installed ?? NO_KEYS;
  return {
    openDatagram: (bytes) => {
      const result = decodeMlPacket(bytes, { label, keys: keys() });
      return result;
    },
    sealDatagram: (payload, crc) =>
      encodeMlPacket(payload, { label, keys: keys(), compress, crc }, fillSecureRandom),
    encodeMessage: encodeMlMessage,
    packCompound: packMlCompound,
    openStream: (bytes, accepted) => {
      const step = new MlStreamReader({
        label,
        keys: keys(),
        labelHeader: accepted,
        bytesMax: streamBytesMax,
      }).push(bytes);
      if (!step.ok) return step;
      return step.done
        ? { ok: true, message: step.message }
        : reject('malformed', 'stream: message incomplete');
    },
    sealStream: (message, dialing) =>
      encodeMlStream(message, { label, keys: keys(), compress, labelHeader: dialing }, fillSecureRandom),
  };
}

/** The node's transport under memberlist's wire: fdkit's UDP and TCP, with memberlist's stream framing. */
export function memberlistTransport(
  options: NodeOptions,
  label: string,
): (transportOptions: TransportOptions) => Promise<Transport> {
  return (transportOptions) => {
    const streamBytesMax = transportOptions.streamBytesMax ?? TRANSPORT_DEFAULTS.streamBytesMax;
    const measurer = () => {
      const reader = new MlStreamReader({
        label,
        keys: options.keyring?.installed ?? NO_KEYS,
        labelHeader: true,
        bytesMax: streamBytesMax,
      });
      return {
        push: (chunk: Uint8Array): number | 'more' | 'invalid' => {
          const step = reader.push(chunk);
          if (!step.ok) return 'invalid';
          return step.done ? step.consumed : 'more';
        },
      };
    };
    return createFramedNetTransport(transportOptions, memberlistFraming(measurer, streamBytesMax));
  };
}

/** Builds memberlist's wire around `core` on `transport`, and registers the transport's receivers. */
export function attachMemberlistWire(
  core: MlCorePort,
  transport: Transport,
  options: MemberlistAttachOptions,
): MemberlistWire {
  const { host } = options;
  const codec = memberlistCodec(options.keyring, options.label, options.compress, options.streamBytesMax);
  const wire = new MemberlistWire(
    core,
    transport,
    codec,
    {
      log: host.log,
      drops: host.drops,
      receive: (what, bytes, from, decode, handle) => host.receive(what, bytes, from, decode, handle),
      exchange: (address, payload, onReply) =>
        sendStreamMessage(transport, address, payload, {
          log: host.log,
          resolver: options.resolver,
          onReply,
        }),
    },
    options.versions,
    options.packetBytesMax,
  );
  transport.onDatagram((bytes, from) => wire.receiveDatagram(bytes, from));
  transport.onStream((bytes, from, reply) => wire.receiveStream(bytes, from, reply));
  return wire;
}
