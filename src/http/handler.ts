/**
 * `fdkitHttpHandler`: the agent's HTTP API as a plain `node:http` request listener, for `fdkit agent
 * --http` and for an application's own server. docs/http.md documents every endpoint.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LifecycleError } from '../errors.js';
import type { MemberEvent } from '../membership/events.js';
import type { HealthJson, LeaderJson, SelfJson, StreamEventJson } from './api-types.js';
import { BearerToken } from './bearer-token.js';
import { EventStream } from './event-stream.js';
import {
  checkSource,
  type HttpHandlerOptions,
  type ResolvedHttpOptions,
  resolveHttpOptions,
} from './handler-options.js';
import type { HttpLeaderChange, HttpMemberEventName, HttpSource } from './http-source.js';
import { readJoinSeeds, TOO_LARGE } from './join-body.js';
import { TransitionLog } from './member-json.js';
import { statusPage } from './page/status-page.js';
import { type HttpErrorCode, sendError, sendJson, sendPage, sendText } from './respond.js';

/** A `node:http` request listener that also ends its event streams and listeners on `close()`. */
export interface FdkitHttpHandler {
  (req: IncomingMessage, res: ServerResponse): void;
  /** Ends every event stream and stops listening to the member and the leader hint. Idempotent. */
  close(): void;
}

const MEMBER_EVENTS: readonly HttpMemberEventName[] = ['alive', 'suspect', 'dead', 'left', 'update'];
const STATES = new Set(['alive', 'suspect', 'dead', 'left']);

/** A failure that maps to one HTTP answer. */
class HttpFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: HttpErrorCode,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

/** What one request is: its method, path and query. */
interface Request {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly path: string;
  readonly query: URLSearchParams;
}

/**
 * Makes the HTTP API of a started member (`SwimNode`): `GET /` (the status page), `/metrics`,
 * `/v1/members` (`?state=alive|suspect|dead|left`), `/v1/self`, `/v1/leader`, `/v1/health`,
 * `/v1/events` (Server-Sent Events), `POST /v1/leave` and `POST /v1/join`. Errors are JSON
 * (`{ error: { code, message } }`); nothing a client sends can throw out of the listener.
 *
 * Throws an `InvalidArgumentError` for a source that is not a member and an `InvalidOptionError` for a
 * bad option.
 *
 * @param source - the member to serve, a `SwimNode` (started before the first request)
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * const handler = fdkitHttpHandler(node, { leader: new LeaderHint(node), metrics: registry });
 * createServer(handler).listen(8080, '127.0.0.1');
 * // on shutdown: handler.close(); server.close();
 * ```
 */
export function fdkitHttpHandler(source: HttpSource, options: HttpHandlerOptions = {}): FdkitHttpHandler {
  checkSource(source);
  const resolved = resolveHttpOptions(options);
  return new HttpApi(source, resolved).listener();
}

class HttpApi {
  private readonly stream: EventStream;
  private readonly log = new TransitionLog();
  private readonly token: BearerToken | undefined;
  private readonly onMember = (event: MemberEvent): void => this.member(event);
  private readonly onLeader = (change: HttpLeaderChange): void => this.leaderChange(change);
  private leaving = false;
  private closed = false;

  constructor(
    private readonly source: HttpSource,
    private readonly options: ResolvedHttpOptions,
  ) {
    this.stream = new EventStream(options.clock, options.heartbeatMs);
    this.token = options.token === undefined ? undefined : new BearerToken(options.token);
    for (const type of MEMBER_EVENTS) source.on(type, this.onMember);
    options.leader?.on('leader', this.onLeader);
  }

  listener(): FdkitHttpHandler {
    const handle = (req: IncomingMessage, res: ServerResponse): void => {
      this.serve(req, res).catch((error: unknown) => this.fail(res, error));
    };
    return Object.assign(handle, { close: () => this.close() });
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const type of MEMBER_EVENTS) this.source.off(type, this.onMember);
    this.options.leader?.off('leader', this.onLeader);
    this.stream.close();
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fdkit.invalid');
    const r: Request = { req, res, path: url.pathname, query: url.searchParams };
    if (this.closed) throw new HttpFailure(503, 'FDKIT_HTTP_UNAVAILABLE', 'the HTTP API is closed');
    // The page holds no data; it reads the token from its own URL, so it is served to anyone.
    if (r.path === '/') return this.page(r);
    const streamed = r.path === '/v1/events';
    if (this.token !== undefined && !this.token.admits(req, streamed ? r.query.get('token') : null)) {
      throw new HttpFailure(401, 'FDKIT_HTTP_UNAUTHORIZED', 'missing or wrong bearer token', {
        'www-authenticate': 'Bearer realm="fdkit"',
      });
    }
    switch (r.path) {
      case '/metrics':
        return this.metrics(r);
      case '/v1/members':
        return this.get(r, () => this.members(r.query));
      case '/v1/self':
        return this.get(r, () => this.self());
      case '/v1/leader':
        return this.get(r, () => this.leader());
      case '/v1/health':
        return this.health(r);
      case '/v1/events':
        return this.events(r);
      case '/v1/leave':
        return this.leave(r);
      case '/v1/join':
        return this.join(r);
      default:
        throw new HttpFailure(404, 'FDKIT_HTTP_NOT_FOUND', `no endpoint ${r.path}`);
    }
  }

  private method(r: Request, allowed: 'GET' | 'POST'): void {
    if (r.req.method !== allowed) {
      throw new HttpFailure(
        405,
        'FDKIT_HTTP_METHOD',
        `${r.path} takes ${allowed}, got ${r.req.method ?? '?'}`,
        {
          allow: allowed,
        },
      );
    }
  }

  private get(r: Request, body: () => unknown): void {
    this.method(r, 'GET');
    sendJson(r.res, 200, body());
  }

  private page(r: Request): void {
    this.method(r, 'GET');
    if (!this.options.page) throw new HttpFailure(404, 'FDKIT_HTTP_NOT_FOUND', 'no page is served at /');
    const page = statusPage();
    sendPage(r.res, page.html, page.policy);
  }

  private async metrics(r: Request): Promise<void> {
    this.method(r, 'GET');
    const metrics = this.options.metrics;
    if (metrics === undefined)
      throw new HttpFailure(404, 'FDKIT_HTTP_NOT_FOUND', 'no metrics registry is served');
    const text = await metrics.metrics();
    sendText(r.res, metrics.contentType, text);
  }

  private members(query: URLSearchParams): unknown {
    const state = query.get('state');
    if (state !== null && !STATES.has(state)) {
      throw new HttpFailure(
        400,
        'FDKIT_HTTP_BAD_REQUEST',
        `/v1/members: state must be alive, suspect, dead or left, got ${JSON.stringify(state)}`,
      );
    }
    const all = this.log.write(this.source.members(), this.source.localMember.name);
    return state === null ? all : all.filter((m) => m.state === state);
  }

  private self(): SelfJson {
    const local = this.source.localMember;
    return {
      name: local.name,
      address: local.address,
      incarnation: local.incarnation,
      localHealth: this.source.localHealth,
      joined: this.joined(),
      pendingBroadcasts: this.source.pendingBroadcasts,
      counters: this.source.counters() as Readonly<Record<string, number>>,
    };
  }

  private leader(): LeaderJson {
    const hint = this.options.leader;
    if (hint === undefined) throw new HttpFailure(404, 'FDKIT_HTTP_NOT_FOUND', 'no leader hint is served');
    return { leader: hint.leader ?? null, epoch: hint.epoch, isLeader: hint.isLeader };
  }

  private health(r: Request): void {
    this.method(r, 'GET');
    const localHealth = this.source.localHealth;
    const joined = this.joined();
    const left = this.leaving || this.source.localMember.state === 'left';
    const status: HealthJson['status'] = left
      ? 'left'
      : !joined
        ? 'starting'
        : localHealth > 0
          ? 'degraded'
          : 'ready';
    const body: HealthJson = { status, localHealth, joined };
    sendJson(r.res, status === 'ready' || status === 'degraded' ? 200 : 503, body);
  }

  private joined(): boolean {
    if (this.options.joined !== undefined) return this.options.joined();
    const self = this.source.localMember.name;
    return this.source.members().some((m) => m.name !== self && m.state === 'alive');
  }

  private events(r: Request): void {
    this.method(r, 'GET');
    this.stream.attach(r.res);
  }

  private async leave(r: Request): Promise<void> {
    this.method(r, 'POST');
    if (this.leaving) throw new HttpFailure(409, 'FDKIT_HTTP_CONFLICT', 'the member is leaving or has left');
    this.leaving = true;
    const result = await this.source.leave();
    sendJson(r.res, 200, result);
    this.options.onLeave?.(result);
  }

  private async join(r: Request): Promise<void> {
    this.method(r, 'POST');
    const join = this.source.join;
    if (join === undefined) throw new HttpFailure(404, 'FDKIT_HTTP_NOT_FOUND', 'this member cannot join');
    if (this.leaving) throw new HttpFailure(409, 'FDKIT_HTTP_CONFLICT', 'the member is leaving or has left');
    const seeds = await readJoinSeeds(r.req);
    if (seeds === TOO_LARGE) {
      throw new HttpFailure(413, 'FDKIT_HTTP_BAD_REQUEST', `/v1/join: ${seeds}`, { connection: 'close' });
    }
    if (typeof seeds === 'string') throw new HttpFailure(400, 'FDKIT_HTTP_BAD_REQUEST', `/v1/join: ${seeds}`);
    try {
      sendJson(r.res, 200, { answered: await join.call(this.source, seeds) });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new HttpFailure(502, 'FDKIT_HTTP_JOIN_FAILED', `/v1/join: ${message}`);
    }
  }

  private member(event: MemberEvent): void {
    this.log.record(event);
    const json: StreamEventJson = {
      kind: 'member',
      type: event.type,
      member: event.member,
      address: event.address,
      incarnation: event.incarnation,
      previous: event.previous,
      cause: event.cause,
      accuser: event.accuser ?? null,
      confirmations: event.confirmations,
      t: Math.round(event.wallMs),
    };
    this.stream.publish(json);
  }

  private leaderChange(change: HttpLeaderChange): void {
    this.stream.publish({
      kind: 'leader',
      leader: change.leader,
      previous: change.previous,
      epoch: change.epoch,
      cause: change.cause,
      t: Math.round(change.wallMs),
    });
  }

  private fail(res: ServerResponse, error: unknown): void {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (error instanceof HttpFailure) {
      sendError(res, error.status, error.code, error.message, error.headers);
    } else if (error instanceof LifecycleError) {
      sendError(res, 503, 'FDKIT_HTTP_UNAVAILABLE', error.message);
    } else {
      sendError(res, 500, 'FDKIT_HTTP_INTERNAL', error instanceof Error ? error.message : String(error));
    }
  }
}
