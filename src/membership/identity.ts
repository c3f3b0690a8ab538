/**
 * Checks of what a member says about itself (name, address, metadata, starting incarnation), shared by
 * the core and by the factories above it, so that a mistake is refused with the same words wherever it
 * is first seen: `createNode` checks before it binds a socket, the core before it starts.
 */
import { InvalidOptionError } from '../errors.js';
import { describeReceived } from '../options.js';
import { ADDRESS_BYTES_MAX, isWireText, META_BYTES_MAX, NAME_BYTES_MAX } from './limits.js';

/** Highest starting incarnation: room is left for refutations to raise it without wrapping. */
export const START_INCARNATION_MAX = 0xffff_fff0;

/** A member name: well-formed text of 1 to 255 bytes in UTF-8. */
export function checkMemberName(owner: string, name: unknown): string {
  if (!isWireText(name, NAME_BYTES_MAX)) {
    throw new InvalidOptionError(
      'FDKIT_INVALID_OPTION',
      'name',
      `${owner}: option name must be well-formed text of 1 to ${NAME_BYTES_MAX} bytes in UTF-8, got ${describeReceived(name)}`,
    );
  }
  return name;
}

/** A member address: well-formed text of 1 to 255 bytes in UTF-8 (opaque to the protocol). */
export function checkMemberAddress(owner: string, address: unknown): string {
  if (!isWireText(address, ADDRESS_BYTES_MAX)) {
    throw new InvalidOptionError(
      'FDKIT_INVALID_OPTION',
      'address',
      `${owner}: option address must be well-formed text of 1 to ${ADDRESS_BYTES_MAX} bytes in UTF-8, got ${describeReceived(address)}`,
    );
  }
  return address;
}

/** Metadata: a Uint8Array of at most 512 bytes. */
export function checkMemberMeta(owner: string, meta: unknown): Uint8Array {
  if (!(meta instanceof Uint8Array) || meta.length > META_BYTES_MAX) {
    throw new InvalidOptionError(
      'FDKIT_INVALID_OPTION',
      'meta',
      `${owner}: option meta must be a Uint8Array of at most ${META_BYTES_MAX} bytes, got ${meta instanceof Uint8Array ? `${meta.length} bytes` : describeReceived(meta)}`,
    );
  }
  return meta;
}

/** A starting incarnation: an integer from 0 to {@link START_INCARNATION_MAX}. */
export function checkStartIncarnation(owner: string, incarnation: unknown): number {
  if (
    typeof incarnation !== 'number' ||
    !Number.isInteger(incarnation) ||
    incarnation < 0 ||
    incarnation > START_INCARNATION_MAX
  ) {
    throw new InvalidOptionError(
      'FDKIT_INVALID_OPTION',
      'incarnation',
      `${owner}: option incarnation must be an integer from 0 to ${START_INCARNATION_MAX}, got ${describeReceived(incarnation)}`,
    );
  }
  return incarnation;
}
