/**
 * A stand-in for the agent's HTTP server, for the status page's tests and screenshot: it serves
 * statusPage() at `/` and the `/v1/*` JSON of src/http/api-types.ts from an in-memory model that the
 * caller changes, pushing each change down the open `/v1/events` streams as the agent would. With a
 * token, every request must carry `Authorization: Bearer <token>`; `/` and `/v1/events` also take it as
 * `?token=`, which is all a browser's address bar and an EventSource can send.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type {
  ErrorJson,
  HealthJson,
  LeaderJson,
  MemberJson,
  SelfJson,
  StreamEventJson,
} from '../../src/http/api-types.js';
import { statusPage } from '../../src/http/page/status-page.js';
import type { MemberStateName } from '../../src/membership/member-state.js';

/** Options of {@link StatusFixture.start}. */
export interface StatusFixtureOptions {
  /** The bearer token every request must carry; none by default. */
  readonly token?: string;
  /** Wall time in Unix ms, for `since` and the events' `t`. */
  readonly now?: () => number;
}

/** What {@link StatusFixture.transition} may set beside the state. */
export interface TransitionDetails {
  readonly accuser?: string | null;
  readonly confirmations?: number;
  readonly cause?: string;
  readonly incarnation?: number;
}

/** One request the fixture answered. */
export interface FixtureRequest {
  readonly method: string;
  readonly url: string;
  readonly status: number;
}

interface Stream {
  readonly response: ServerResponse;
  nextId: number;
}

/** The fake agent. */
export class StatusFixture {
  /** The members of `/v1/members`, by name; change them with the methods below so events go out. */
  readonly members = new Map<string, MemberJson>();
  /** Every request answered, in order. */
  readonly requests: FixtureRequest[] = [];
  self: SelfJson = {
    name: 'local',
    address: '127.0.0.1:7946',
    incarnation: 1,
    localHealth: 0,
    joined: true,
    pendingBroadcasts: 0,
    counters: {},
  };
  health: HealthJson = { status: 'ready', localHealth: 0, joined: true };
  /** The leader hint; null answers 404, as an agent with no hint configured does. */
  leader: LeaderJson | null = null;
  /** When true, `/v1/events` answers 503 instead of a stream, as a server in trouble would. */
  refuseStreams = false;
  /** The bearer token every request must carry, if any; change it to play a rotated token. */
  token: string | undefined;
  private readonly streams = new Set<Stream>();
  private readonly now: () => number;

  private constructor(
    private readonly server: Server,
    options: StatusFixtureOptions,
  ) {
    this.token = options.token;
    this.now = options.now ?? (() => Date.now());
  }

  /** Starts a fixture on an ephemeral port of 127.0.0.1. */
  static async start(options: StatusFixtureOptions = {}): Promise<StatusFixture> {
    let fixture: StatusFixture | undefined;
    const server = createServer((req, res) => fixture!.handle(req, res));
    fixture = new StatusFixture(server, options);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fixture;
  }

  /** `http://127.0.0.1:PORT`, the only origin the page may talk to. */
  get origin(): string {
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  /** The number of `/v1/events` streams open now. */
  get openStreams(): number {
    return this.streams.size;
  }

  /** Adds (or replaces) a member without an event, as if it was there before the page connected. */
  add(name: string, fields: Partial<Omit<MemberJson, 'name'>> = {}): MemberJson {
    const member: MemberJson = {
      name,
      address: fields.address ?? `127.0.0.1:${7000 + this.members.size}`,
      state: 'alive',
      incarnation: 1,
      meta: '',
      metaEncoding: 'utf8',
      since: this.now(),
      accuser: null,
      confirmations: 0,
      phi: 0.4,
      rttMs: 1.2,
      local: false,
      ...fields,
    };
    this.members.set(name, member);
    return member;
  }

  /** Moves a member to `state` in the model and pushes the `member` event to every open stream. */
  transition(name: string, state: MemberStateName, details: TransitionDetails = {}): void {
    const held = this.members.get(name);
    if (held === undefined) throw new Error(`StatusFixture.transition: no member ${name}`);
    const t = this.now();
    const member: MemberJson = {
      ...held,
      state,
      since: t,
      incarnation: details.incarnation ?? held.incarnation,
      accuser: details.accuser ?? null,
      confirmations: details.confirmations ?? 0,
    };
    this.members.set(name, member);
    this.push({
      kind: 'member',
      type: state,
      member: name,
      address: member.address,
      incarnation: member.incarnation,
      previous: held.state,
      cause: details.cause ?? 'test',
      accuser: member.accuser,
      confirmations: member.confirmations,
      t,
    });
  }

  /** Names a new leader in the model and pushes the `leader` event. */
  elect(leader: string, cause = 'test'): void {
    const previous = this.leader?.leader ?? '';
    const epoch = (this.leader?.epoch ?? 0) + 1;
    this.leader = { leader, epoch, isLeader: leader === this.self.name };
    this.push({ kind: 'leader', leader, previous, epoch, cause, t: this.now() });
  }

  /** Ends every open stream, as a server restart or a dropped connection would. */
  dropStreams(): void {
    for (const stream of this.streams) stream.response.end();
    this.streams.clear();
  }

  /** Stops the server, its streams included. */
  async close(): Promise<void> {
    this.dropStreams();
    this.server.closeAllConnections();
    await new Promise<void>((resolve, reject) => this.server.close((e) => (e ? reject(e) : resolve())));
  }

  private push(event: StreamEventJson): void {
    for (const stream of this.streams) {
      stream.response.write(`event: ${event.kind}\nid: ${stream.nextId}\ndata: ${JSON.stringify(event)}\n\n`);
      stream.nextId += 1;
    }
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://fixture');
    const answer = (status: number, type: string, body: string): void => {
      this.requests.push({ method: req.method ?? '', url: req.url ?? '', status });
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    };
    const json = (status: number, body: unknown): void =>
      answer(status, 'application/json', JSON.stringify(body));
    const error = (status: number, code: string, message: string): void =>
      json(status, { error: { code, message } } satisfies ErrorJson);
    const healthy = this.health.status === 'ready' || this.health.status === 'degraded';

    if (req.method !== 'GET') error(405, 'method', `${req.method} is not allowed`);
    else if (!this.authorized(req, url)) error(401, 'unauthorized', 'a bearer token is required');
    else if (url.pathname === '/') answer(200, 'text/html; charset=utf-8', statusPage().html);
    else if (url.pathname === '/v1/members') json(200, [...this.members.values()]);
    else if (url.pathname === '/v1/self') json(200, this.self);
    else if (url.pathname === '/v1/health') json(healthy ? 200 : 503, this.health);
    else if (url.pathname === '/v1/leader' && this.leader !== null) json(200, this.leader);
    else if (url.pathname === '/v1/leader') error(404, 'no-leader-hint', 'no leader hint is configured');
    else if (url.pathname === '/v1/events' && this.refuseStreams)
      error(503, 'unavailable', 'streams are refused');
    else if (url.pathname === '/v1/events') this.openStream(req, res);
    else error(404, 'not-found', `no ${url.pathname}`);
  }

  private authorized(req: IncomingMessage, url: URL): boolean {
    if (this.token === undefined) return true;
    if (req.headers.authorization === `Bearer ${this.token}`) return true;
    const queryAllowed = url.pathname === '/' || url.pathname === '/v1/events';
    return queryAllowed && url.searchParams.get('token') === this.token;
  }

  private openStream(req: IncomingMessage, res: ServerResponse): void {
    this.requests.push({ method: req.method ?? '', url: req.url ?? '', status: 200 });
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    // A short retry, so that a test of a dropped stream sees the browser's own reconnection quickly.
    res.write('retry: 250\n\n');
    const stream: Stream = { response: res, nextId: 1 };
    this.streams.add(stream);
    req.on('close', () => this.streams.delete(stream));
  }
}
