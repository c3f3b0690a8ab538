/**
 * One simulated TCP connection of the in-memory network, both of its ends. Apart from the transport
 * because three parties open one: a transport's `sendStream` and `watch`, and the network's raw test
 * connections; all it needs of the network is the delivery schedule.
 */
import type { InboundStream } from './inbound-stream.js';

/** What a connection needs of its network: the schedule every event crosses it through. */
export interface DeliverySchedule {
  /** Runs `task` after the network's latency. */
  schedule(task: () => void): void;
}

/** The client side of a connection: what the receiver's actions do to it. */
interface ClientEnd {
  /** The receiver confirmed, with the reply frame it wrote first, if any. */
  peerEnded(reply: Uint8Array | undefined): void;
  peerReset(): void;
}

/** One simulated TCP connection. Every event crosses it through the network's delivery schedule. */
export class MemoryConnection {
  private readonly network: DeliverySchedule;
  private readonly client: ClientEnd;
  private session: InboundStream | undefined;
  private clientOpen = true;
  private serverOpen = true;

  constructor(network: DeliverySchedule, client: ClientEnd) {
    this.network = network;
    this.client = client;
  }

  attach(session: InboundStream): void {
    this.session = session;
  }

  /** The receiver's view of the connection. */
  readonly server = {
    end: (reply?: Uint8Array): void => {
      if (!this.serverOpen) return;
      this.serverOpen = false;
      this.network.schedule(() => this.client.peerEnded(reply));
    },
    reset: (): void => {
      if (!this.serverOpen) return;
      this.serverOpen = false;
      this.clientOpen = false;
      this.network.schedule(() => this.client.peerReset());
    },
  };

  write(chunk: Uint8Array): void {
    if (!this.clientOpen) return;
    this.network.schedule(() => {
      if (this.serverOpen) this.session?.data(chunk);
    });
  }

  end(): void {
    if (!this.clientOpen) return;
    this.clientOpen = false;
    this.network.schedule(() => {
      if (this.serverOpen) this.session?.end();
    });
  }

  reset(): void {
    if (!this.clientOpen && !this.serverOpen) return;
    this.clientOpen = false;
    this.network.schedule(() => {
      if (!this.serverOpen) return;
      this.serverOpen = false;
      this.session?.broken();
    });
  }
}
