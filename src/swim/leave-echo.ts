/**
 * Which members have shown that they applied this member's leave: a packet from a member that carries
 * the leave statement back (its gossip, or its ack to this member's ping, which carries what it holds of
 * a prober it holds left) comes from a member that holds this one left. The runtime's `leave()` waits for
 * every live member to have echoed it, so that it resolves as soon as the leave is known everywhere
 * rather than after a fixed time.
 */
import type { Packet } from './messages.js';

export class LeaveEcho {
  /** The members heard echoing the leave, by name. */
  readonly heardFrom = new Set<string>();

  constructor(
    private readonly name: string,
    private readonly incarnation: number,
  ) {}

  /** Notes the sender of `packet` when it carries the leave. */
  heard(packet: Packet): void {
    for (const u of packet.updates) {
      if (
        u.kind === 'dead' &&
        u.name === this.name &&
        u.from === this.name &&
        u.incarnation === this.incarnation
      ) {
        this.heardFrom.add(packet.from);
        return;
      }
    }
  }
}
