/**
 * The one message of the heartbeat monitor, as plain data; the wire codec (docs/design.md, "Wire") turns it into
 * bytes. A heartbeat says who sends it, where it can be reached, which life of the sender this is and
 * which beat of that life.
 */

/** One heartbeat. Every number is an unsigned 32-bit integer. */
export interface Heartbeat {
  /** The sender's name. */
  readonly from: string;
  /** The address the sender is reached at (`host:port`), so that a peer given by address is recognised. */
  readonly address: string;
  /** The sender's life: wall-clock seconds at its start by default, so a restart outranks the past. */
  readonly incarnation: number;
  /** Drawn at random at each start: tells two starts within the same second apart. */
  readonly nonce: number;
  /** 0 at start, one more per beat (wrapping at 2^32): late or duplicated datagrams are recognised. */
  readonly seq: number;
}
