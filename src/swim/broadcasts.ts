/**
 * Application broadcasts: each travels by gossip, piggybacked like membership updates, and is reported
 * once by each member, which passes it on. Recent ones are remembered to drop the duplicates that
 * infection-style spread brings.
 */

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
  ) {}

  /** The next broadcast of this member, carrying `payload` (not queued yet: see {@link send}). */
  next(payload: Uint8Array): UserBroadcast {
    return { kind: 'user', origin: this.origin, seq: this.seq, payload };
  }

  /** Spreads `update`, the one {@link next} returned. */
  send(update: UserBroadcast): void {
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
