/**
 * The transport layer's public surface, in one import: the `Transport` interface, the UDP/TCP and
 * in-memory implementations, addresses and seed resolution.
 */

// The public names of what Transport.probeConnect resolves to and Transport.watch returns; the types
// themselves are shared with the core.
export type {
  ConnectOutcome as ConnectProbeResult,
  Watch as WatchHandle,
  WatchEnd,
} from '../membership/connection.js';
export {
  canonicalHost,
  formatAddress,
  type HostKind,
  type HostPort,
  hostKind,
  isValidAddress,
  normalizeAddress,
  type ParseAddressOptions,
  parseAddress,
} from './address.js';
export { chooseAdvertiseHost, type InterfaceAddress } from './advertise.js';
export { probeConnect } from './connect-probe.js';
export {
  encodeFrame,
  FRAME_BYTES_MAX,
  FRAME_HEADER_BYTES,
  FrameReader,
  type FrameReadResult,
  frameHeader,
} from './frame.js';
export {
  DATAGRAM_BYTES_MAX,
  type LinkFilter,
  MemoryNetwork,
  type MemoryNetworkOptions,
  type RawConnection,
} from './memory.js';
export { BIND_ATTEMPTS_MAX, createNetTransport, type NetTransportOptions } from './net-transport.js';
export { TRANSPORT_DEFAULTS, type TransportLogger, type TransportOptions } from './options.js';
export {
  checkSeed,
  type ResolvedSeeds,
  resolveSeeds,
  type SeedFailure,
  type SeedResolver,
  type SrvRecord,
  systemResolver,
} from './resolve.js';
export {
  DROP_REASONS,
  type DropReason,
  type MessageHandler,
  REPLY_BYTES_MAX,
  type Transport,
  type TransportCounters,
} from './transport.js';
