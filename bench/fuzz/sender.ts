/**
 * Sends the fuzzer's datagrams to the members from sockets on three loopback addresses (127.0.0.1 to
 * 127.0.0.3, none of them a member's port), so that the same bytes also arrive from addresses no member
 * knows. Paced by what the members received: at most `window` datagrams to a member are in flight, so
 * that the point is what a member does with them, not whether its socket buffer overflows (which would
 * drop probes as well, and which the kernel's own counter, read by `kernel.ts`, still shows).
 * Whatever the members answer is read and counted, and otherwise ignored.
 */
import { createSocket, type Socket } from 'node:dgram';
import type { FuzzCluster } from './cluster.js';

const SOURCES = ['127.0.0.1', '127.0.0.2', '127.0.0.3'] as const;
const WAIT_STEP_MS = 2;
/**
 * Well below a socket's default receive buffer (212,992 bytes on Linux), which counts each datagram's
 * whole kernel buffer, up to twice its payload for large ones on loopback: 96 KiB still lost thousands.
 */
const BYTES_IN_FLIGHT_MAX = 48 * 1024;
/** A member that takes no datagram for this long is stuck: the run stops waiting and says so. */
const STALL_MS = 10_000;

export class Sender {
  private readonly sockets: Socket[] = [];
  /** Datagrams sent to each member (by index), and what the member had received before the first. */
  private readonly sent: number[];
  /** Per member, the bytes of its first i datagrams at index i. */
  private readonly cumulative: number[][];
  private base: readonly number[] = [];
  private arrived: readonly number[] = [];
  replies = 0;
  replyBytes = 0;
  sendErrors = 0;
  stalls = 0;

  constructor(
    private readonly cluster: FuzzCluster,
    private readonly ports: readonly number[],
    private readonly window: number,
  ) {
    this.sent = ports.map(() => 0);
    this.cumulative = ports.map(() => [0]);
  }

  async open(): Promise<void> {
    for (const host of SOURCES) {
      const socket = createSocket('udp4');
      socket.on('message', (bytes) => {
        this.replies++;
        this.replyBytes += bytes.length;
      });
      socket.on('error', () => {
        this.sendErrors++;
      });
      await new Promise<void>((resolve) => socket.bind(0, host, resolve));
      this.sockets.push(socket);
    }
    this.base = await this.cluster.received();
    this.arrived = this.base;
  }

  /** Sends `bytes` to member `member` from source `source` once the member has room for it. */
  async send(member: number, source: number, bytes: Uint8Array): Promise<void> {
    await this.room(member, bytes.length);
    const cumulative = this.cumulative[member]!;
    cumulative.push(cumulative[cumulative.length - 1]! + bytes.length);
    this.sent[member]!++;
    const socket = this.sockets[source % this.sockets.length]!;
    socket.send(bytes, this.ports[member]!, '127.0.0.1', (error) => {
      if (error) this.sendErrors++;
    });
  }

  private inFlight(member: number): number {
    return this.sent[member]! - (this.arrived[member]! - this.base[member]!);
  }

  private bytesInFlight(member: number): number {
    const cumulative = this.cumulative[member]!;
    const arrived = Math.min(this.sent[member]!, Math.max(0, this.sent[member]! - this.inFlight(member)));
    return cumulative[cumulative.length - 1]! - cumulative[arrived]!;
  }

  private full(member: number, length: number): boolean {
    return this.inFlight(member) >= this.window || this.bytesInFlight(member) + length > BYTES_IN_FLIGHT_MAX;
  }

  private async room(member: number, length: number): Promise<void> {
    if (!this.full(member, length)) return;
    const started = Date.now();
    this.arrived = await this.cluster.received();
    while (this.full(member, length) && this.inFlight(member) > 0) {
      if (Date.now() - started > STALL_MS) {
        // Lost in the kernel, most likely: stop counting those as in flight.
        this.stalls++;
        this.base = this.base.map((b, i) => (i === member ? b - this.inFlight(member) : b));
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, WAIT_STEP_MS));
      this.arrived = await this.cluster.received();
    }
  }

  /** Datagrams sent so far, over all members. */
  get total(): number {
    return this.sent.reduce((a, b) => a + b, 0);
  }

  async close(): Promise<void> {
    await Promise.all(this.sockets.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
}
