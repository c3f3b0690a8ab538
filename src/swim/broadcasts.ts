/**
 * Application broadcasts: each travels by gossip, piggybacked like membership updates, and is reported
 * once by each member, which passes it on. Recent ones are remembered to drop the duplicates that
 * infection-style spread brings.
 */

import { InvalidArgumentError } from '../errors.js';
import { packetBaseBytes, updateBytes } from './message-size.js';
import type { UserBroadcast } from './messages.js';
import type { Outbox } from './outbox.js';
import type { Reporter } from './reporter.js';

/** Application broadcasts remembered to drop duplicates. */
const SEEN_BROADCASTS_MAX = 4096;

export class Broadcasts {
  private readonly seen = new Set<string>();
  private seq = 0;

  constructor(
    private readonly origin: string,
    private readonly outbox: Outbox,
    private readonly reporter: Reporter,
    private readonly packetBytesMax: number,
  ) {}

  /**
   * Spreads `payload` as this member's next broadcast. It travels piggybacked, so it must fit a gossip
   * packet, the smallest that carries updates: an `InvalidArgumentError` (naming `owner`) otherwise.
   */
  spread(owner: string, payload: Uint8Array): void {
    const update: UserBroadcast = { kind: 'user', origin: this.origin, seq: this.seq, payload };
    const room =
      this.packetBytesMax - packetBaseBytes({ type: 'gossip', from: this.origin, updates: [] }) - 3;
    if (updateBytes(update) > room) {
      throw new InvalidArgumentError(
        'payload',
        `${owner}: broadcast payload of ${payload.length} bytes does not fit packetBytesMax (${this.packetBytesMax}); send it directly, or raise packetBytesMax`,
      );
    }
    this.seq = (this.seq + 1) >>> 0;
    this.remember(update.origin, update.seq);
    this.outbox.enqueue(update);
  }

  /** A broadcast arrived: reported and passed on the first time only. */
  receive(update: UserBroadcast): void {
    if (!this.remember(update.origin, update.seq)) return;
    this.reporter.message(update.origin, update.payload, true);
    this.outbox.enqueue(update);
  }

  private remember(origin: string, seq: number): boolean {
    const key = `${origin}\u0000${seq}`;
    if (this.seen.has(key)) return false;
    if (this.seen.size >= SEEN_BROADCASTS_MAX) {
      const oldest = this.seen.values().next().value;
      if (oldest !== undefined) this.seen.delete(oldest);
    }
    this.seen.add(key);
    return true;
  }
}
