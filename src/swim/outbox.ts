/**
 * Everything a SWIM member sends: datagrams, each filled with the updates waiting in the broadcast queue
 * (piggybacked gossip), stream messages, and the connection attempts that ask a member's host whether
 * its process still listens.
 */

import { BroadcastQueue } from './broadcast-queue.js';
import type { SwimConfig } from './config.js';
import type { SwimCounters } from './counters.js';
import type { SwimEnvironment } from './environment.js';
import type { MemberView } from './member-view.js';
import { arrayHeaderBytes, packetBaseBytes, packetBytes, updateBytes } from './message-size.js';
import type { BusyUpdate, Packet, StreamMessage, SuspectUpdate, Update } from './messages.js';
import { retransmitLimit } from './timing.js';

export class Outbox {
  private readonly queue = new BroadcastQueue<Update>(updateBytes);
  // retransmitLimit(n) takes a logarithm; n changes rarely, packets are many.
  private limitForSize = -1;
  private cachedLimit = 0;

  /** @param onQueued - runs after each update is queued (the gossiper wakes up) */
  constructor(
    private readonly config: SwimConfig,
    private readonly env: SwimEnvironment,
    private readonly view: MemberView,
    private readonly counters: SwimCounters,
    private readonly onQueued: () => void,
    /** This member's busy statement while it is busy (`backpressure.ts`): it rides on every packet. */
    private readonly busyStatement: () => BusyUpdate | undefined = () => undefined,
  ) {}

  /** Updates waiting to be gossiped. */
  get pending(): number {
    return this.queue.length;
  }

  /** Whether an update about member `key` waits to be gossiped. */
  isQueued(key: number): boolean {
    return this.queue.has(key);
  }

  /** Queues `update` for gossip, replacing an older one about member `key`. */
  enqueue(update: Update, key?: number): void {
    this.queue.enqueue(update, key, update.kind === 'suspect' ? otherAccuser(update) : undefined);
    this.onQueued();
  }

  /** Drops the waiting updates for which `drops` answers true; returns how many. */
  forget(drops: (update: Update) => boolean): number {
    return this.queue.dropWhere(drops);
  }

  /**
   * Sends `packet` after filling its update list (still empty, or holding a buddy suspicion) with as many
   * waiting updates as fit in the packet budget.
   */
  sendPacket(address: string, packet: Packet): void {
    const updates = packet.updates as Update[];
    const busy = this.busyStatement();
    if (busy !== undefined) updates.push(busy);
    const before = updates.length;
    let bytes = before === 0 ? packetBaseBytes(packet) + 1 : packetBytes(packet);
    if (this.queue.length > 0) {
      // Room for the update array header to grow from one byte to three.
      bytes += this.queue.take(this.config.packetBytesMax - bytes - 2, 0, this.retransmitLimit(), updates);
      bytes += arrayHeaderBytes(updates.length) - arrayHeaderBytes(before);
    }
    this.counters.packetsSent++;
    this.env.sendPacket(address, packet, bytes);
  }

  /** Sends `message` of `bytes` encoded bytes over a stream. */
  sendStream(address: string, message: StreamMessage, bytes: number): void {
    this.env.sendStream(address, message, bytes);
  }

  /** Whether the environment can try connections (see {@link SwimEnvironment.probeConnect}). */
  get canConnect(): boolean {
    return this.env.probeConnect !== undefined;
  }

  /**
   * Tries a connection to `id`'s port, when the environment can, counting it; `onRefused` runs if its
   * host refused it, `onAccepted` if it accepted it, within `timeoutMs` (a probe timeout by default).
   */
  tryConnect(
    id: number,
    onRefused: () => void,
    onAccepted?: () => void,
    timeoutMs = this.config.probeTimeoutMs,
  ): void {
    const env = this.env;
    const connect = env.probeConnect;
    if (connect === undefined) return;
    this.counters.connectProbes++;
    connect.call(env, this.view.directory.addressOf(id), timeoutMs, (outcome) => {
      if (outcome === 'accepted') onAccepted?.();
      if (outcome !== 'refused') return;
      this.counters.connectsRefused++;
      onRefused();
    });
  }

  private retransmitLimit(): number {
    const n = this.view.clusterSize;
    if (n !== this.limitForSize) {
      this.limitForSize = n;
      this.cachedLimit = retransmitLimit(this.config, n);
    }
    return this.cachedLimit;
  }
}

/**
 * Which queued updates a suspicion leaves beside it: the same suspicion raised by other members. Each is a
 * confirmation, and a refused connection is evidence, that the others need from its own author; were it
 * replaced, a watcher forwarding the second witness's refusal would stop sending its own, and the others
 * would wait for the full suspicion timeout.
 */
function otherAccuser(s: SuspectUpdate): (older: Update) => boolean {
  return (older) => older.kind === 'suspect' && older.incarnation === s.incarnation && older.from !== s.from;
}
