/**
 * What an fdkit member says to HashiCorp Serf so that Serf lists it as `left` rather than `failed` when it
 * leaves (docs/memberlist-wire.md, "Serf"). Serf calls a member that memberlist reports gone `left` only
 * when a leave intent came first (or comes later, turning `failed` into `left`): a user message of type 0
 * holding `{LTime, Node}`, where LTime is a Lamport time above the member's last status time. Serf's
 * push-pull state (type 2) carries the sender's Lamport clock as `LTime`, from which such a time is taken.
 */
import { InvalidArgumentError } from '../../errors.js';
import { type Rejection, reject } from '../drop-reason.js';
import { fieldKey, MpReader, MpWriter } from './msgpack.js';

/** Serf's message types (`messageType` in Serf's messages.go) that fdkit reads or writes. */
const LEAVE_INTENT = 0;
const PUSH_PULL = 2;

const L_TIME = fieldKey('LTime');
const NODE = fieldKey('Node');

/** The Lamport clock a Serf member stated in its push-pull state. */
export interface SerfClockRead {
  /** Always true: tells the result from a {@link Rejection}. */
  readonly ok: true;
  /** The sender's Lamport time (`LTime`). */
  readonly ltime: number;
}

/**
 * The user message by which Serf learns that `node` leaves: broadcast it (`node.broadcast(...)`) before
 * `leave()`, with `ltime` above every Lamport time Serf has seen (the clock from
 * {@link readSerfClock} plus one).
 *
 * @throws {@link InvalidArgumentError} when `ltime` is not a whole number in [1, 2^53 − 1] or `node` is
 * empty.
 */
export function encodeSerfLeaveIntent(node: string, ltime: number): Uint8Array {
  if (!Number.isSafeInteger(ltime) || ltime < 1) {
    throw new InvalidArgumentError('ltime', `encodeSerfLeaveIntent: ltime must be a whole number >= 1`);
  }
  if (typeof node !== 'string' || node === '') {
    throw new InvalidArgumentError('node', `encodeSerfLeaveIntent: node must be a non-empty string`);
  }
  // A struct as go-msgpack writes it: a map keyed by field name, in name order (LTime, Node).
  const out = new MpWriter(16 + node.length).u8(LEAVE_INTENT).map(2).key(L_TIME);
  if (ltime <= 0xffff_ffff) out.uint(ltime);
  else
    out
      .u8(0xcf)
      .u32(Math.floor(ltime / 0x1_0000_0000))
      .u32(ltime % 0x1_0000_0000);
  return out.key(NODE).str(node).finish();
}

/**
 * The Lamport clock in a Serf member's push-pull state (what `delegates.mergeRemoteState` receives from a
 * Serf member). Never throws: state that is not Serf's push-pull is a {@link Rejection}.
 */
export function readSerfClock(state: Uint8Array): SerfClockRead | Rejection {
  if (state[0] !== PUSH_PULL) return reject('unknown-type', 'not a Serf push-pull state');
  const reader = new MpReader(state, 1);
  const n = reader.readMapLength('serf push-pull');
  for (let i = 0; i < n && reader.ok; i++) {
    if (reader.takeKey(L_TIME)) {
      const ltime = reader.readUint(Number.MAX_SAFE_INTEGER, 'serf push-pull LTime');
      if (reader.ok) return { ok: true, ltime };
    } else {
      reader.skip('serf push-pull key');
      reader.skip('serf push-pull value');
    }
  }
  return reader.ok
    ? reject('malformed', 'serf push-pull without LTime')
    : reject(reader.reason, reader.detail);
}
