/**
 * The Go agent among its own kind: three memberlist 0.2.2 members on loopback, driven through
 * test/wire/memberlist/go-agent.ts. These pin what the agent reports before the mixed Go and fdkit tests
 * rely on it: joins, metadata, user messages, encryption, crash detection, a pause that is survived,
 * and leave.
 */
import { performance } from 'node:perf_hooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildGoAgent, GoAgent, type GoEvent, lastBuild, startGoCluster } from './go-agent.js';

const text = (s: string): Uint8Array => new TextEncoder().encode(s);
const decoded = (b: Uint8Array): string => new TextDecoder().decode(b);

/** A memberlist key of 16 bytes, fixed so that a failure reproduces. */
const KEY_A = new Uint8Array(Array.from({ length: 16 }, (_, i) => i + 1));
const KEY_B = new Uint8Array(Array.from({ length: 16 }, (_, i) => 200 - i));

const started: GoAgent[] = [];

async function cluster(names: readonly string[], keys?: readonly Uint8Array[]): Promise<GoAgent[]> {
  const agents = await startGoCluster(names, keys === undefined ? {} : { keys });
  started.push(...agents);
  return agents;
}

afterEach(async () => {
  await Promise.all(started.splice(0).map((a) => a.kill()));
});

afterAll(async () => {
  await Promise.all(started.splice(0).map((a) => a.kill()));
});

beforeAll(() => {
  buildGoAgent();
  console.log(
    `go-agent build: ${Math.round(lastBuild.ms)} ms (${lastBuild.compiled ? 'compiled' : 'cached'})`,
  );
}, 300_000);

const aboutLeave =
  (member: string) =>
  (e: GoEvent): boolean =>
    e.event === 'leave' && e.member === member;

describe('three Go agents under DefaultLANConfig', () => {
  it('form a cluster, merge user state on join, and list each other alive', async () => {
    const [a, b, c] = await cluster(['ga', 'gb', 'gc']);
    expect(a!.ready?.joined).toBeUndefined();
    expect(b!.ready?.joined).toBe(1);
    // c's push-pull with ga brings ga's view of gb too; memberlist counts the nodes it contacted.
    expect(c!.ready?.joined).toBe(1);
    const states = (x: GoAgent): string[] =>
      x.events.flatMap((r) =>
        r.event.event === 'remote-state' && r.event.join ? [decoded(r.event.state)] : [],
      );
    expect(states(b!)).toContain('go:ga');
    expect(states(a!)).toEqual(expect.arrayContaining(['go:gb', 'go:gc']));
    for (const x of [a!, b!, c!]) {
      const members = await x.members();
      expect(members.map((m) => m.name).sort()).toEqual(['ga', 'gb', 'gc']);
      for (const m of members) {
        expect(m.state).toBe('alive');
        expect(m.incarnation).toBeGreaterThanOrEqual(1);
        expect(m.addr).toMatch(/^127\.0\.0\.1:\d+$/);
      }
    }
  });

  it('spreads a metadata update with a higher incarnation', async () => {
    const [a, b, c] = await cluster(['ga', 'gb', 'gc'].map((n) => `${n}-meta`));
    const before = (await b!.members()).find((m) => m.name === a!.name)!;
    const marks = [b!.mark(), c!.mark()];
    await a!.setMeta(text('role=primary'));
    for (const [i, x] of [b!, c!].entries()) {
      const r = await x.waitFor((e) => e.event === 'update' && e.member === a!.name, 10_000, marks[i]);
      if (r.event.event !== 'update') throw new Error('unreachable');
      expect(decoded(r.event.meta)).toBe('role=primary');
      expect(r.event.incarnation).toBeGreaterThan(before.incarnation!);
    }
    expect(decoded((await c!.members()).find((m) => m.name === a!.name)!.meta)).toBe('role=primary');
  });

  it('delivers a user broadcast to every other member, and direct messages to their target', async () => {
    const [a, b, c] = await cluster(['ga', 'gb', 'gc'].map((n) => `${n}-msg`));
    const got = (payload: string) => (e: GoEvent) => e.event === 'message' && decoded(e.payload) === payload;
    await b!.broadcast(text('hello from gb'));
    await a!.waitFor(got('hello from gb'), 10_000);
    await c!.waitFor(got('hello from gb'), 10_000);
    await a!.send(c!.name, text('best effort to gc'));
    await c!.waitFor(got('best effort to gc'), 5000);
    await a!.send(b!.name, text('reliable to gb'), true);
    // SendReliable returns once the stream is written; the delivery follows on the other side.
    await b!.waitFor(got('reliable to gb'), 5000);
    expect(b!.events.some((r) => got('best effort to gc')(r.event))).toBe(false);
    await expect(a!.send('nobody', text('x'))).rejects.toThrow(/no live member/);
  });

  it('sees a kill -9 as dead, and a leave as left', async () => {
    const [a, b, c] = await cluster(['ga', 'gb', 'gc'].map((n) => `${n}-down`));
    const killedAt = performance.now();
    c!.kill9();
    const seen = await Promise.all([a!, b!].map((x) => x.waitFor(aboutLeave(c!.name), 40_000)));
    for (const r of seen) {
      if (r.event.event !== 'leave') throw new Error('unreachable');
      expect(r.event.state).toBe('dead');
    }
    const ms = seen.map((r) => Math.round(r.at - killedAt));
    console.log(`kill -9 of a Go member seen dead by the other two after ${ms.join(' and ')} ms`);

    await b!.leave();
    const left = await a!.waitFor(aboutLeave(b!.name), 10_000);
    if (left.event.event !== 'leave') throw new Error('unreachable');
    expect(left.event.state).toBe('left');
    expect((await a!.members()).map((m) => m.name)).toEqual([a!.name]);
  }, 60_000);

  it('leaves on SIGTERM and on the end of stdin, and exits 0 on quit', async () => {
    const [a, b, c, d] = await cluster(['ga', 'gb', 'gc', 'gd'].map((n) => `${n}-end`));
    c!.signal('SIGTERM');
    d!.child.stdin!.end();
    for (const x of [c!, d!]) {
      const r = await a!.waitFor(aboutLeave(x.name), 10_000);
      expect(r.event.event === 'leave' && r.event.state).toBe('left');
      await x.waitFor((e) => e.event === 'left', 5000);
    }
    b!.command('quit');
    await b!.whenClosed;
    expect(b!.exit).toMatchObject({ code: 0, signal: null });
    for (const x of [c!, d!]) {
      await x.whenClosed;
      expect(x.exit).toMatchObject({ code: 0, signal: null });
    }
  }, 60_000);

  it('survives a 3 s SIGSTOP of one member without declaring it dead', async () => {
    const [a, b, c] = await cluster(['ga', 'gb', 'gc'].map((n) => `${n}-pause`));
    const marks = [a!.mark(), b!.mark()];
    c!.stop();
    await new Promise((resolve) => setTimeout(resolve, 3000));
    c!.cont();
    // Long enough for any suspicion raised during the pause to run out (its floor is 4 s at three
    // members under DefaultLANConfig) unless c refuted it.
    await new Promise((resolve) => setTimeout(resolve, 8000));
    // The pause was noticed: each of the two probes gc at least once in any three probe intervals.
    const suspected = [a!, b!].some((x, i) =>
      x.events.slice(marks[i]).some((r) => r.event.event === 'suspect' && r.event.member === c!.name),
    );
    expect(suspected).toBe(true);
    for (const [i, x] of [a!, b!].entries()) {
      expect(x.events.slice(marks[i]).filter((r) => aboutLeave(c!.name)(r.event))).toEqual([]);
      const view = (await x.members()).find((m) => m.name === c!.name);
      expect(view?.state).toBe('alive');
    }
  }, 60_000);
});

describe('Go agents with a keyring', () => {
  it('form a cluster on a shared key and keep out a member with another key', async () => {
    const [a, b, c] = await cluster(['ka', 'kb', 'kc'], [KEY_A]);
    const stranger = await GoAgent.start({ name: 'kx', keys: [KEY_B], join: [a!.address] });
    started.push(stranger);
    expect(stranger.ready?.error).toMatch(/decrypt|key/i);
    expect(stranger.ready?.joined).toBeUndefined();
    // A member with no keyring at all is kept out too: memberlist verifies incoming encryption.
    const plain = await GoAgent.start({ name: 'kp', join: [a!.address] });
    started.push(plain);
    expect(plain.ready?.error).toBeDefined();
    await b!.broadcast(text('sealed'));
    await c!.waitFor((e) => e.event === 'message' && decoded(e.payload) === 'sealed', 10_000);
    for (const x of [a!, b!, c!]) {
      expect((await x.members()).map((m) => m.name).sort()).toEqual(['ka', 'kb', 'kc']);
    }
  }, 60_000);
});
