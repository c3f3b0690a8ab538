/**
 * Coalescing of outgoing packets into compound datagrams (memberlist's compound messages): packets that
 * the protocol sends to one address in one turn of the event loop (an ack and a ping, gossip and a
 * relayed ack) leave in as few datagrams as the packet budget allows, which saves a system call, a
 * header and a receive wake-up each.
 */
import { packCompound } from '../wire/compound.js';

// A reaction on a settled promise runs where a queued microtask would; queueMicrotask itself wraps every
// callback in an AsyncResource (Node 20), which costs more than the flush it schedules.
const settled = Promise.resolve();
function afterThisTurn(flush: () => void): void {
  void settled.then(flush);
}

export class DatagramBatcher {
  private readonly pending = new Map<string, Uint8Array[]>();
  private scheduled = false;
  private readonly flushNow = (): void => this.flush();

  /**
   * @param send - hands one datagram to the transport
   * @param budgetBytes - largest compound datagram to build (the packet budget)
   * @param schedule - runs the flush after the current turn; a microtask by default
   * @param pack - joins several encoded packets into datagrams within the budget: fdkit's compound by
   *   default, memberlist's for its wire
   */
  constructor(
    private readonly send: (address: string, datagram: Uint8Array) => void,
    private readonly budgetBytes: number,
    private readonly schedule: (flush: () => void) => void = afterThisTurn,
    private readonly pack: (parts: Uint8Array[], budgetBytes: number) => Uint8Array[] = packCompound,
  ) {}

  /** Queues one encoded packet for `address`. */
  add(address: string, packet: Uint8Array): void {
    const queued = this.pending.get(address);
    if (queued === undefined) this.pending.set(address, [packet]);
    else queued.push(packet);
    if (!this.scheduled) {
      this.scheduled = true;
      this.schedule(this.flushNow);
    }
  }

  /** Sends everything queued. */
  flush(): void {
    this.scheduled = false;
    for (const [address, packets] of this.pending) {
      // A packet alone, or one already at the budget, goes as it is.
      if (packets.length === 1) this.send(address, packets[0]!);
      else for (const datagram of this.pack(packets, this.budgetBytes)) this.send(address, datagram);
    }
    this.pending.clear();
  }
}
