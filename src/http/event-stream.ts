/**
 * `/v1/events`: member and leader events as Server-Sent Events, to every client connected. A client
 * that stops reading is cut off once its unread backlog passes a bound, so that a stalled reader can
 * neither grow this member's memory nor slow the others; a comment line every `heartbeatMs` keeps idle
 * connections alive through proxies and lets a client notice a dead server.
 */
import type { ServerResponse } from 'node:http';
import type { Clock, Timer } from '../runtime/clock.js';
import type { StreamEventJson } from './api-types.js';

// A member's events are a few hundred bytes; 1 MiB unread is thousands of events behind.
const BACKLOG_MAX_BYTES = 1 << 20;

interface Client {
  readonly res: ServerResponse;
  nextId: number;
}

/** The connected SSE clients of one handler. */
export class EventStream {
  private readonly clients = new Set<Client>();
  private heartbeat: Timer | undefined;
  private closed = false;

  constructor(
    private readonly clock: Clock,
    private readonly heartbeatMs: number,
  ) {}

  /** Clients connected now. */
  get size(): number {
    return this.clients.size;
  }

  /** Takes over `res` as an event stream until the client goes or {@link EventStream.close}. */
  attach(res: ServerResponse): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    // The first line flushes the headers, so that the client's EventSource opens at once.
    res.write(': fdkit events\n\n');
    const client: Client = { res, nextId: 1 };
    this.clients.add(client);
    res.on('close', () => this.clients.delete(client));
    this.armHeartbeat();
  }

  /** Sends one event to every client. */
  publish(event: StreamEventJson): void {
    if (this.clients.size === 0) return;
    const data = JSON.stringify(event);
    for (const client of this.clients) {
      this.write(client, `id: ${client.nextId}\nevent: ${event.kind}\ndata: ${data}\n\n`);
      client.nextId += 1;
    }
  }

  /** Ends every stream and stops the heartbeat; later clients are refused by the handler. */
  close(): void {
    this.closed = true;
    this.heartbeat?.cancel();
    this.heartbeat = undefined;
    for (const client of this.clients) client.res.end();
    this.clients.clear();
  }

  private write(client: Client, text: string): void {
    if (client.res.writableLength > BACKLOG_MAX_BYTES) {
      this.clients.delete(client);
      client.res.destroy();
      return;
    }
    client.res.write(text);
  }

  private armHeartbeat(): void {
    if (this.heartbeat !== undefined || this.closed) return;
    this.heartbeat = this.clock.setTimer(this.heartbeatMs, () => {
      this.heartbeat = undefined;
      if (this.clients.size === 0) return;
      for (const client of this.clients) this.write(client, ': ping\n\n');
      this.armHeartbeat();
    });
  }
}
