/**
 * The HTTP API on a real server (127.0.0.1:0) over a fake member: every endpoint's JSON and status,
 * the token, the event stream and its keep-alive on virtual time, and requests that must not crash it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { LifecycleError } from '../../src/errors.js';
import type { HealthJson, MemberJson, SelfJson } from '../../src/http/api-types.js';
import { fdkitHttpHandler } from '../../src/http/handler.js';
import type { HttpHandlerOptions } from '../../src/http/handler-options.js';
import { statusPage } from '../../src/http/page/status-page.js';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';
import { FakeLeader, FakeMember, member } from './fake-member.js';
import { openSse, type Served, serve } from './serve.js';

const TOKEN = 'correct-horse-battery-staple';
let served: Served | undefined;

afterEach(async () => {
  await served?.close();
  served = undefined;
});

function threeMembers(): FakeMember {
  return new FakeMember('a', [member('a'), member('b'), member('c')]);
}

async function start(source: FakeMember, options: HttpHandlerOptions = {}): Promise<string> {
  served = await serve(fdkitHttpHandler(source, { clock: new VirtualClock(), ...options }));
  return served.url;
}

async function json<T>(url: string, init?: RequestInit): Promise<{ status: number; body: T }> {
  const res = await fetch(url, init);
  return { status: res.status, body: (await res.json()) as T };
}

describe('/v1/members', () => {
  it('lists every member with its state, the local one marked, metadata as text or base64', async () => {
    const source = new FakeMember('a', [
      member('a', { meta: new TextEncoder().encode('priority=10') }),
      member('b', { meta: Uint8Array.of(0xff, 0x00, 0xfe), rttMs: 1.5, phi: 2.25 }),
    ]);
    const url = await start(source);
    const { status, body } = await json<MemberJson[]>(`${url}/v1/members`);
    expect(status).toBe(200);
    expect(body).toEqual([
      expect.objectContaining({
        name: 'a',
        local: true,
        meta: 'priority=10',
        metaEncoding: 'utf8',
        rttMs: null,
      }),
      expect.objectContaining({
        name: 'b',
        local: false,
        state: 'alive',
        meta: Buffer.from([0xff, 0x00, 0xfe]).toString('base64'),
        metaEncoding: 'base64',
        rttMs: 1.5,
        phi: 2.25,
        since: null,
        accuser: null,
        confirmations: 0,
      }),
    ]);
  });

  it('knows since when, and who accused, from the transitions it saw; the view wins on confirmations', async () => {
    const source = threeMembers();
    const url = await start(source);
    source.transition('b', 'suspect', { accuser: 'c', confirmations: 1, wallMs: 1_700_000_123_456.7 });
    const first = (await json<MemberJson[]>(`${url}/v1/members`)).body.find((m) => m.name === 'b');
    expect(first).toMatchObject({
      state: 'suspect',
      since: 1_700_000_123_457,
      accuser: 'c',
      confirmations: 1,
    });
    // Confirmations grow without an event: the view's suspicion is the current one.
    source.view = source.view.map((m) =>
      m.name === 'b' ? { ...m, suspicion: { accuser: 'c', confirmations: 3 } } : m,
    );
    const later = (await json<MemberJson[]>(`${url}/v1/members`)).body.find((m) => m.name === 'b');
    expect(later).toMatchObject({ confirmations: 3, since: 1_700_000_123_457 });
    // An update keeps the state, so it keeps the time the state began.
    source.transition('b', 'update', { wallMs: 1_700_000_200_000 });
    source.transition('b', 'alive', { cause: 'refuted', wallMs: 1_700_000_300_000 });
    const refuted = (await json<MemberJson[]>(`${url}/v1/members`)).body.find((m) => m.name === 'b');
    expect(refuted).toMatchObject({
      state: 'alive',
      since: 1_700_000_300_000,
      accuser: null,
      confirmations: 0,
    });
  });

  it('filters by state, and refuses a state that does not exist, naming it', async () => {
    const source = threeMembers();
    const url = await start(source);
    source.transition('c', 'dead');
    const dead = await json<MemberJson[]>(`${url}/v1/members?state=dead`);
    expect(dead.body.map((m) => m.name)).toEqual(['c']);
    const alive = await json<MemberJson[]>(`${url}/v1/members?state=alive`);
    expect(alive.body.map((m) => m.name)).toEqual(['a', 'b']);
    const bad = await json<{ error: { code: string; message: string } }>(`${url}/v1/members?state=zombie`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('FDKIT_HTTP_BAD_REQUEST');
    expect(bad.body.error.message).toContain('"zombie"');
  });
});

describe('/v1/self, /v1/leader and /v1/health', () => {
  it('serves the local member with its health, queue and counters', async () => {
    const source = threeMembers();
    source.localHealth = 2;
    source.pendingBroadcasts = 5;
    const url = await start(source);
    const { body } = await json<SelfJson>(`${url}/v1/self`);
    expect(body).toEqual({
      name: 'a',
      address: member('a').address,
      incarnation: 1,
      localHealth: 2,
      joined: true,
      pendingBroadcasts: 5,
      counters: { probes: 7, suspicions: 1 },
    });
  });

  it('serves the leader hint, and 404 without one', async () => {
    const url = await start(threeMembers());
    expect((await fetch(`${url}/v1/leader`)).status).toBe(404);
    await served?.close();
    const hint = new FakeLeader();
    hint.move('b', 1);
    const again = await start(threeMembers(), { leader: hint });
    expect((await json(`${again}/v1/leader`)).body).toEqual({ leader: 'b', epoch: 1, isLeader: false });
  });

  it('is starting until another member is alive, ready when healthy, degraded when not, left after a leave', async () => {
    const source = new FakeMember('a', [member('a'), member('b', { state: 'dead' })]);
    const url = await start(source);
    const health = (): Promise<{ status: number; body: HealthJson }> => json<HealthJson>(`${url}/v1/health`);
    expect(await health()).toEqual({
      status: 503,
      body: { status: 'starting', localHealth: 0, joined: false },
    });
    source.transition('b', 'alive');
    expect(await health()).toEqual({ status: 200, body: { status: 'ready', localHealth: 0, joined: true } });
    source.localHealth = 1;
    expect(await health()).toEqual({
      status: 200,
      body: { status: 'degraded', localHealth: 1, joined: true },
    });
    source.transition('a', 'left');
    expect((await health()).body.status).toBe('left');
    expect((await health()).status).toBe(503);
  });

  it('takes the joined predicate of the caller: a first member alone is ready', async () => {
    const source = new FakeMember('a', [member('a')]);
    const url = await start(source, { joined: () => true });
    expect((await json<HealthJson>(`${url}/v1/health`)).body.status).toBe('ready');
  });

  it('answers 503, not a crash, while the member is not started, and 500 for a source that throws', async () => {
    const source = threeMembers();
    Object.defineProperty(source, 'localMember', {
      get: () => {
        throw new LifecycleError('FDKIT_NOT_STARTED', 'localMember: the node is not started');
      },
    });
    const url = await start(source);
    const unstarted = await json<{ error: { code: string } }>(`${url}/v1/self`);
    expect(unstarted.status).toBe(503);
    expect(unstarted.body.error.code).toBe('FDKIT_HTTP_UNAVAILABLE');
    source.members = () => {
      throw new Error('view broken');
    };
    const broken = await json<{ error: { code: string; message: string } }>(`${url}/v1/members`);
    expect(broken).toEqual({
      status: 500,
      body: { error: { code: 'FDKIT_HTTP_INTERNAL', message: 'view broken' } },
    });
    expect((await fetch(`${url}/v1/nothing`)).status).toBe(404);
  });
});

describe('/v1/events', () => {
  it('streams member and leader events with ids counting from 1, and a keep-alive only when due', async () => {
    const source = threeMembers();
    const hint = new FakeLeader();
    const clock = new VirtualClock();
    const url = await start(source, { leader: hint, clock, heartbeatMs: 5_000 });
    const stream = await openSse(`${url}/v1/events`);
    await stream.until(/: fdkit events/);
    source.transition('b', 'suspect', { accuser: 'c', confirmations: 2, wallMs: 1_700_000_000_001 });
    hint.move('c', 1_700_000_000_002);
    const text = await stream.until(/event: leader/);
    const events = text.split('\n\n').filter((block) => block.startsWith('id:'));
    expect(events[0]).toBe(
      `id: 1\nevent: member\ndata: ${JSON.stringify({
        kind: 'member',
        type: 'suspect',
        member: 'b',
        address: member('b').address,
        incarnation: 1,
        previous: 'alive',
        cause: 'probe-failed',
        accuser: 'c',
        confirmations: 2,
        t: 1_700_000_000_001,
      })}`,
    );
    expect(events[1]).toMatch(
      /^id: 2\nevent: leader\ndata: \{"kind":"leader","leader":"c","previous":"a","epoch":1,/,
    );
    clock.advance(4_999);
    source.transition('b', 'alive');
    await stream.until(/id: 3/);
    expect(stream.text()).not.toContain(': ping');
    clock.advance(1);
    await stream.until(/: ping/);
    await stream.cancel();
  });

  it('numbers each connection on its own, and close() ends every stream', async () => {
    const source = threeMembers();
    served = await serve(fdkitHttpHandler(source, { clock: new VirtualClock() }));
    const first = await openSse(`${served.url}/v1/events`);
    source.transition('b', 'suspect');
    await first.until(/id: 1\n/);
    const second = await openSse(`${served.url}/v1/events`);
    await second.until(/: fdkit events/);
    source.transition('b', 'alive');
    await first.until(/id: 2\n/);
    await second.until(/id: 1\nevent: member\ndata: \{"kind":"member","type":"alive"/);
    await served.close();
    served = undefined;
    await first.ended();
    await second.ended();
  });
});

describe('the bearer token', () => {
  it('is needed on every endpoint but the page, in the header, or in the query of the event stream only', async () => {
    const url = await start(threeMembers(), { token: TOKEN });
    const refused = await fetch(`${url}/v1/members`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="fdkit"');
    expect(
      (await fetch(`${url}/v1/members`, { headers: { authorization: `Bearer ${TOKEN}x` } })).status,
    ).toBe(401);
    expect((await fetch(`${url}/v1/members`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(
      200,
    );
    expect((await fetch(`${url}/v1/members?token=${TOKEN}`)).status).toBe(401);
    expect((await fetch(`${url}/metrics`)).status).toBe(401);
    expect((await fetch(`${url}/v1/events`)).status).toBe(401);
    const stream = await openSse(`${url}/v1/events?token=${TOKEN}`);
    await stream.until(/: fdkit events/);
    await stream.cancel();
    expect((await fetch(`${url}/`)).status).toBe(200);
  });
});

describe('operator actions', () => {
  it('leaves once on POST /v1/leave, tells the caller, and refuses a second leave and a GET', async () => {
    const source = threeMembers();
    const left: unknown[] = [];
    const url = await start(source, { onLeave: (result) => left.push(result) });
    const get = await fetch(`${url}/v1/leave`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect(source.leaves).toBe(0);
    const first = await json(`${url}/v1/leave`, { method: 'POST' });
    expect(first).toEqual({ status: 200, body: { acknowledged: 2, live: 2, timedOut: false } });
    expect(left).toEqual([{ acknowledged: 2, live: 2, timedOut: false }]);
    expect((await fetch(`${url}/v1/leave`, { method: 'POST' })).status).toBe(409);
    expect(source.leaves).toBe(1);
    expect((await json<HealthJson>(`${url}/v1/health`)).body.status).toBe('left');
  });

  it('joins the seeds of a POST /v1/join, and refuses bodies that are not seeds', async () => {
    const source = threeMembers();
    const url = await start(source);
    const post = (body: string) =>
      json<{ error?: { message: string }; answered?: number }>(`${url}/v1/join`, { method: 'POST', body });
    expect(await post('{"seeds":["127.0.0.1:7946","srv:cluster.example"]}')).toEqual({
      status: 200,
      body: { answered: 1 },
    });
    expect(source.joins).toEqual([['127.0.0.1:7946', 'srv:cluster.example']]);
    for (const [body, says] of [
      ['not json', 'must be JSON'],
      ['{"seeds":[]}', 'array of 1 to 64'],
      ['{"seeds":[7]}', 'got 7'],
      ['{"seeds":["nohost"]}', '"nohost"'],
    ] as const) {
      const answer = await post(body);
      expect(answer.status, body).toBe(400);
      expect(answer.body.error?.message).toContain(says);
    }
    const huge = await post(JSON.stringify({ seeds: ['x'.repeat(70_000)] }));
    expect(huge.status).toBe(413);
    expect(huge.body.error?.message).toContain('at most 65536 bytes');
    expect(source.joins).toHaveLength(1);
    source.joinAnswer = () => Promise.reject(new Error('no seed answered'));
    const failed = await post('{"seeds":["127.0.0.1:7946"]}');
    expect(failed.status).toBe(502);
    expect(failed.body.error?.message).toContain('no seed answered');
  });
});

describe('/metrics and /', () => {
  it('serves the registry as it is, and 404 for what was not given', async () => {
    const metrics = {
      contentType: 'text/plain; version=0.0.4',
      metrics: async () => 'fdkit_members{state="alive"} 3\n',
    };
    const url = await start(threeMembers(), { metrics });
    const res = await fetch(`${url}/metrics`);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4');
    expect(await res.text()).toBe('fdkit_members{state="alive"} 3\n');
    const page = await fetch(`${url}/`);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toBe(statusPage().html);
    expect(page.headers.get('content-security-policy')).toBe(
      `${statusPage().policy}; frame-ancestors 'none'`,
    );
    await served?.close();
    const bare = await start(threeMembers(), { page: false });
    expect((await fetch(`${bare}/metrics`)).status).toBe(404);
    expect((await fetch(`${bare}/`)).status).toBe(404);
  });
});

describe('options', () => {
  it('refuses a short token without echoing it, an unknown option, and a source that is not a member', () => {
    const source = threeMembers();
    const short = (): unknown => fdkitHttpHandler(source, { token: 'hunter2' });
    expect(short).toThrow(expect.objectContaining({ code: 'FDKIT_INVALID_OPTION', option: 'token' }));
    expect(short).toThrow(/fdkitHttpHandler: option token .*got a string of 7 characters/);
    expect(short).not.toThrow(/hunter2/);
    expect(() => fdkitHttpHandler(source, { tokn: TOKEN } as HttpHandlerOptions)).toThrow(
      expect.objectContaining({ code: 'FDKIT_UNKNOWN_OPTION' }),
    );
    expect(() => fdkitHttpHandler(source, { heartbeatMs: 10 })).toThrow(
      /heartbeatMs must be a number >= 1000/,
    );
    expect(() => fdkitHttpHandler({} as FakeMember)).toThrow(
      expect.objectContaining({ code: 'FDKIT_INVALID_ARGUMENT' }),
    );
  });

  it('stops listening to the member and the hint on close()', async () => {
    const source = threeMembers();
    const hint = new FakeLeader();
    const handler = fdkitHttpHandler(source, { leader: hint, clock: new VirtualClock() });
    expect(source.listenerCount('suspect')).toBe(1);
    expect(hint.listenerCount('leader')).toBe(1);
    handler.close();
    handler.close();
    expect(source.listenerCount('suspect')).toBe(0);
    expect(hint.listenerCount('leader')).toBe(0);
  });
});
