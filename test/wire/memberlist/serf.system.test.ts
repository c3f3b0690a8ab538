/**
 * An fdkit member in a real Serf cluster (Debian's `serf` agent on loopback, killed by PID at the end):
 * with Serf's tags in its metadata and Serf's delegate versions, `serf members` lists it alive with its
 * tags, it holds the Serf agent alive with the agent's tags, a tag update reaches Serf, Serf's user
 * events reach it, Serf's encryption key works, and after a leave intent and `leave()` Serf lists it
 * `left` (without the intent: `failed`). Serf's log must show no error nor warning. Skipped when no
 * `serf` binary is installed.
 */
import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNode, Keyring, type SwimNode } from '../../../src/index.js';
import { encodeSerfLeaveIntent, readSerfClock } from '../../../src/wire/memberlist/serf-intents.js';
import {
  decodeSerfTags,
  encodeSerfTags,
  SERF_DELEGATE_VERSIONS,
} from '../../../src/wire/memberlist/serf-tags.js';
import { freePort } from '../../support/free-port.js';

const HAVE_SERF = spawnSync('serf', ['version'], { timeout: 5_000 }).status === 0;

interface SerfMember {
  readonly name: string;
  readonly addr: string;
  readonly port: number;
  readonly tags: Record<string, string>;
  readonly status: string;
  readonly protocol: { readonly min: number; readonly max: number; readonly version: number };
}

/** A `serf agent` process, its RPC address and every line it logged. */
class SerfAgent {
  readonly lines: string[] = [];

  private constructor(
    readonly child: ChildProcess,
    readonly bind: string,
    readonly rpc: string,
  ) {
    createInterface({ input: child.stdout! }).on('line', (l) => this.lines.push(l));
    createInterface({ input: child.stderr! }).on('line', (l) => this.lines.push(l));
  }

  static async start(
    name: string,
    tags: readonly string[],
    extra: readonly string[] = [],
  ): Promise<SerfAgent> {
    const port = await freePort();
    const rpcPort = await freePort(new Set([port]));
    const bind = `127.0.0.1:${port}`;
    const rpc = `127.0.0.1:${rpcPort}`;
    const args = ['agent', '-node', name, '-bind', bind, '-rpc-addr', rpc, '-log-level', 'debug'];
    const child = spawn('serf', [...args, ...extra, ...tags.flatMap((t) => ['-tag', t])], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const agent = new SerfAgent(child, bind, rpc);
    await waitUntil('serf agent running', 10_000, () => agent.lines.some((l) => l.includes('agent running')));
    return agent;
  }

  /** `serf members -format json`. */
  members(): Promise<SerfMember[]> {
    return new Promise((resolve, reject) => {
      execFile(
        'serf',
        ['members', '-rpc-addr', this.rpc, '-format', 'json'],
        { timeout: 5_000 },
        (error, stdout) => {
          if (error) reject(error);
          else resolve((JSON.parse(stdout) as { members: SerfMember[] }).members);
        },
      );
    });
  }

  async member(name: string): Promise<SerfMember | undefined> {
    return (await this.members()).find((m) => m.name === name);
  }

  /** `serf event NAME PAYLOAD`: a user event, gossiped as a memberlist user message. */
  event(name: string, payload: string): Promise<void> {
    return new Promise((resolve, reject) => {
      execFile('serf', ['event', '-rpc-addr', this.rpc, name, payload], { timeout: 5_000 }, (error) =>
        error ? reject(error) : resolve(),
      );
    });
  }

  /** Lines at level ERR or WARN. */
  complaints(): string[] {
    return this.lines.filter((l) => /\[(ERR|WARN)\]/.test(l));
  }

  kill(): void {
    if (this.child.exitCode === null && this.child.pid !== undefined) process.kill(this.child.pid, 'SIGKILL');
  }
}

/** Polls `check` every 100 ms until it holds; fails after `timeoutMs`. */
async function waitUntil(what: string, timeoutMs: number, check: () => boolean | Promise<boolean>) {
  const deadline = performance.now() + timeoutMs;
  for (let i = 0; i < 10 * Math.ceil(timeoutMs / 1000) + 1; i++) {
    if (await check()) return;
    if (performance.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

const text = (b: Uint8Array) => Buffer.from(b).toString('latin1');

/** An fdkit member dressed for Serf, and the Lamport clock it learnt from Serf's push-pull states. */
function serfNode(name: string, tags: Record<string, string>, keyring?: Keyring) {
  const seen = { clock: 0 };
  const node = createNode({
    name,
    bind: '127.0.0.1:0',
    wire: 'memberlist',
    memberlist: { delegateVersions: SERF_DELEGATE_VERSIONS },
    meta: encodeSerfTags(tags),
    ...(keyring === undefined ? {} : { keyring }),
    delegates: {
      mergeRemoteState(state) {
        const read = readSerfClock(state);
        if (read.ok) seen.clock = Math.max(seen.clock, read.ltime);
      },
    },
  });
  return { node, seen };
}

describe('an fdkit member in a Serf cluster', () => {
  let serf: SerfAgent;
  const nodes: SwimNode[] = [];
  const others: SerfAgent[] = [];

  beforeAll(async () => {
    // Not skipped when missing: .ci/run installs Debian's serf, and a missing one is a broken set-up.
    if (!HAVE_SERF) throw new Error('serf is not installed: apt-get install -y serf (as .ci/run does)');
    serf = await SerfAgent.start('s1', ['role=db']);
  }, 20_000);

  afterAll(async () => {
    await Promise.all(nodes.map((n) => n.shutdown().catch(() => undefined)));
    serf?.kill();
    for (const agent of others) agent.kill();
  });

  it('is listed by serf members with its tags, holds s1 with its tags, and is listed left after it leaves', async () => {
    const { node, seen } = serfNode('f1', { role: 'web', dc: 'x' });
    nodes.push(node);
    const messages: Uint8Array[] = [];
    node.on('message', (e) => messages.push(e.payload));
    await node.start();
    await node.join([serf.bind]);

    await waitUntil(
      'serf to list f1 alive',
      10_000,
      async () => (await serf.member('f1'))?.status === 'alive',
    );
    const f1 = (await serf.member('f1'))!;
    expect(f1.tags).toEqual({ role: 'web', dc: 'x' });
    expect(f1.addr).toBe(node.localAddress);
    expect(f1.protocol).toEqual({ min: 2, max: 5, version: 4 });

    const s1 = node.members().find((m) => m.name === 's1');
    expect(s1?.state).toBe('alive');
    expect(decodeSerfTags(s1!.meta)).toEqual({ ok: true, tags: { role: 'db' } });
    // Serf's push-pull state came with the join: its Lamport clock is known.
    expect(seen.clock).toBeGreaterThanOrEqual(1);

    // A tag update spreads as memberlist's alive with a higher incarnation; Serf re-reads the tags.
    node.updateMetadata(encodeSerfTags({ role: 'web', dc: 'y' }));
    await waitUntil('serf to see dc=y', 10_000, async () => (await serf.member('f1'))?.tags.dc === 'y');

    // A Serf user event is a memberlist user message: type 3, then Serf's msgpack.
    await serf.event('deploy', 'v42');
    await waitUntil('the user event', 10_000, () => messages.some((m) => m[0] === 3));
    const event = messages.find((m) => m[0] === 3)!;
    expect(text(event)).toContain('deploy');
    expect(text(event)).toContain('v42');

    // Each probes the other every second: after three of f1's probes of s1 neither suspected the other,
    // and f1 understood every byte Serf sent (its user messages and compressed packets included).
    await waitUntil('three probes of s1', 10_000, () => node.counters().probes >= 3);
    expect(node.counters().probesFailed).toBe(0);
    expect(Object.values(node.counters().drops).every((n) => n === 0)).toBe(true);
    expect((await serf.member('f1'))?.status).toBe('alive');
    expect(serf.lines.filter((l) => /Suspect|Marking/.test(l))).toEqual([]);

    node.broadcast(encodeSerfLeaveIntent('f1', seen.clock + 1));
    await node.leave();
    await waitUntil('serf to list f1 left', 10_000, async () => (await serf.member('f1'))?.status === 'left');
    expect(serf.lines.some((l) => l.includes('EventMemberLeave: f1'))).toBe(true);
    expect(serf.lines.some((l) => l.includes('EventMemberFailed: f1'))).toBe(false);
    expect(serf.complaints()).toEqual([]);
  }, 60_000);

  it('is listed failed, not left, when it leaves without a leave intent', async () => {
    const { node } = serfNode('f2', { role: 'web' });
    nodes.push(node);
    await node.start();
    await node.join([serf.bind]);
    await waitUntil(
      'serf to list f2 alive',
      10_000,
      async () => (await serf.member('f2'))?.status === 'alive',
    );
    await node.leave();
    await waitUntil(
      'serf to list f2 gone',
      10_000,
      async () => (await serf.member('f2'))?.status !== 'alive',
    );
    expect((await serf.member('f2'))?.status).toBe('failed');
    expect(serf.complaints()).toEqual([]);
  }, 60_000);

  it("joins an encrypted Serf cluster with Serf's key (serf agent -encrypt, AES-256)", async () => {
    const key = Uint8Array.from({ length: 32 }, (_, i) => 7 + i);
    const secret = await SerfAgent.start(
      's2',
      ['role=db'],
      ['-encrypt', Buffer.from(key).toString('base64')],
    );
    others.push(secret);
    const { node } = serfNode('f3', { role: 'web' }, new Keyring([key]));
    nodes.push(node);
    await node.start();
    await node.join([secret.bind]);
    await waitUntil(
      'serf to list f3 alive',
      10_000,
      async () => (await secret.member('f3'))?.status === 'alive',
    );
    expect((await secret.member('f3'))?.tags).toEqual({ role: 'web' });
    await waitUntil('a probe of s2', 10_000, () => node.counters().probes >= 1);
    expect(node.counters().probesFailed).toBe(0);
    expect(Object.values(node.counters().drops).every((n) => n === 0)).toBe(true);
    expect(secret.complaints()).toEqual([]);
  }, 60_000);
});
