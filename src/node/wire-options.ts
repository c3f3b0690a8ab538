/**
 * The node's `wire` and `memberlist` options: which wire format it speaks (fdkit's own, or memberlist's
 * to join hashicorp/memberlist clusters: docs/memberlist-wire.md), and memberlist's settings.
 */
import { InvalidOptionError } from '../errors.js';
import { checkKnownKeys, describeReceived } from '../options.js';
import { hostKind, parseAddress } from '../transport/address.js';
import {
  type DelegateVersions,
  NO_DELEGATE_VERSIONS,
  ownVersionVector,
} from '../wire/memberlist/versions.js';

/** Which wire format a node speaks. */
export type WireName = 'fdkit' | 'memberlist';

/** Settings of memberlist's wire (the node option `memberlist`). */
export interface MemberlistWireOptions {
  /**
   * The application's protocol versions, which memberlist carries beside its own and checks across the
   * cluster: a Go application that sets `DelegateProtocolMin/Max/Version` needs the same range here.
   * Default `{ min: 0, max: 0, current: 0 }`, memberlist's default.
   */
  readonly delegateVersions?: DelegateVersions;
  /**
   * Compress what is sent with LZW, as memberlist does by default (`EnableCompression`). What arrives is
   * read either way. Default `false`: compressing every datagram costs CPU for little on small packets.
   */
  readonly compress?: boolean;
}

/** The wire options, checked. */
export type ResolvedWire =
  | { readonly kind: 'fdkit' }
  | { readonly kind: 'memberlist'; readonly vsn: Uint8Array; readonly compress: boolean };

/** What of the node's options the wire options are checked against. */
interface WireOwnerOptions {
  readonly wire?: WireName;
  readonly memberlist?: MemberlistWireOptions;
  readonly transport?: unknown;
  readonly bind?: string;
  readonly advertise?: string;
}

/** Checks `wire` and `memberlist` of `owner`'s options. */
export function resolveWireOptions(owner: string, options: WireOwnerOptions): ResolvedWire {
  const wire = options.wire ?? 'fdkit';
  if (wire !== 'fdkit' && wire !== 'memberlist') {
    throw new InvalidOptionError(
      'FDKIT_INVALID_OPTION',
      'wire',
      `${owner}: option wire must be 'fdkit' or 'memberlist', got ${describeReceived(wire)}`,
    );
  }
  const ml = options.memberlist;
  if (wire === 'fdkit') {
    if (ml !== undefined) {
      throw new InvalidOptionError(
        'FDKIT_INVALID_OPTION',
        'memberlist',
        `${owner}: option memberlist needs wire: 'memberlist', got wire ${describeReceived(options.wire)}`,
      );
    }
    return { kind: 'fdkit' };
  }
  if (options.transport !== undefined) {
    // memberlist's streams carry no length before each message: only fdkit's own TCP transport reads them.
    throw new InvalidOptionError(
      'FDKIT_INVALID_OPTION',
      'transport',
      `${owner}: option transport cannot be combined with wire: 'memberlist', which needs fdkit's own UDP/TCP transport, got ${describeReceived(options.transport)}`,
    );
  }
  for (const key of ['advertise', 'bind'] as const) {
    const address = options[key];
    // memberlist carries an IP address and a port: a member advertised by name could not be reached.
    if (address !== undefined && hostKind(parseAddress(address, { allowPortZero: true }).host) === 'name') {
      throw new InvalidOptionError(
        'FDKIT_INVALID_OPTION',
        key,
        `${owner}: with wire: 'memberlist', option ${key} must have an IP address (memberlist carries no host names), got ${describeReceived(address)}`,
      );
    }
  }
  if (ml !== undefined && (typeof ml !== 'object' || ml === null)) {
    throw new InvalidOptionError(
      'FDKIT_INVALID_OPTION',
      'memberlist',
      `${owner}: option memberlist must be an object, got ${describeReceived(ml)}`,
    );
  }
  if (ml !== undefined) checkKnownKeys(owner, ml, ['delegateVersions', 'compress'], 'memberlist.');
  const compress = ml?.compress ?? false;
  if (typeof compress !== 'boolean') {
    throw new InvalidOptionError(
      'FDKIT_INVALID_OPTION',
      'memberlist.compress',
      `${owner}: option memberlist.compress must be a boolean, got ${describeReceived(compress)}`,
    );
  }
  const vsn = ownVersionVector(
    owner,
    ml?.delegateVersions ?? NO_DELEGATE_VERSIONS,
    'memberlist.delegateVersions',
  );
  return { kind: 'memberlist', vsn, compress };
}
