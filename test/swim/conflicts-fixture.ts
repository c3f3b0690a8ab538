/**
 * What the tests of the name conflicts mechanism (src/swim/conflicts.ts) share: the two claimants'
 * addresses, a conflict notice as a peer sends it, and a conflict event as one line to compare.
 */
import type { ConflictEvent } from '../../src/swim/events.js';
import type { ConflictNotice } from '../../src/swim/messages.js';
import { addressOf } from './swim-context.js';

/** The address of the member under test, which holds the name `self`. */
export const OWN = addressOf('self');
/** The address of a second process claiming a name. */
export const IMPOSTOR = 'impostor:1';

/** A `conflict` datagram from `from` about `name`, with no piggybacked updates. */
export const notice = (
  from: string,
  holderAddress: string,
  otherAddress: string,
  name = 'self',
): ConflictNotice => ({
  type: 'conflict',
  from,
  name,
  holderAddress,
  otherAddress,
  updates: [],
});

/** A conflict event as `name existing other holder self`. */
export const report = (e: ConflictEvent): string =>
  `${e.name} ${e.existingAddress} ${e.otherAddress} ${e.holderAddress} ${e.self}`;
