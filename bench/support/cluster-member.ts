/**
 * One process of `bench/cluster-load.ts`. `cluster-load` transpiles this file to JavaScript in a temporary
 * directory and runs it with plain `node` (no TypeScript loader, so that the loader's thread and memory
 * are not charged to the member); fdkit itself is imported from the compiled `dist/`, whose URL comes in
 * `--entry`.
 *
 * Roles:
 * - `fdkit`: one `createNode` member on `--bind` (`lan` profile) that joins `--join` when given;
 * - `bare`: the floor of the same traffic in bare Node: a `node:dgram` socket that every second sends one
 *   ping-sized datagram to the next of its peers (given later with `peers`) and answers every ping with
 *   an ack-sized datagram, plus an idle TCP listener: the steady state of a SWIM member (one probe a
 *   second, nothing to gossip, so no gossip timer, as fdkit's gossiper sleeps while its queue is empty)
 *   with no protocol at all.
 *
 * Commands, one per line on stdin; answers, one JSON object per line on stdout:
 * - `sample` → `{"type":"sample", ...}` ({@link Sample}): CPU time first, then RSS and traffic counters
 *   (cheap reads, so that the measured window holds almost nothing but the member's own work);
 *   `sample alive` adds how many members this one holds alive (walks the member list: used while the
 *   cluster forms, not for the measured samples);
 * - `peers ADDRESS...` (bare) → `{"type":"ok"}`;
 * - `profile-start INTERVAL_US` / `profile-stop PATH` → `{"type":"ok"}`: a V8 CPU profile of this process
 *   between the two, through `node:inspector`, written to PATH;
 * - `exit` → a last sample, then the process shuts the member down and exits.
 * The process also exits when stdin closes (its parent is gone) and after `--lifetime-ms` in any case, so
 * that no member outlives the bench.
 */
import { createSocket, type Socket } from 'node:dgram';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { createServer, type Server } from 'node:net';
import { createInterface } from 'node:readline';
import type * as Fdkit from '../../src/index.js';
import { benchFlags, numberFlag, stringFlag } from './flags.js';

/** What a member reports on `sample`. */
export interface Sample {
  readonly type: 'sample';
  readonly role: 'fdkit' | 'bare';
  readonly name: string;
  readonly address: string;
  /** Monotonic milliseconds (this process's clock; only differences are meaningful). */
  readonly tMs: number;
  /** process.cpuUsage(), microseconds since the process started. */
  readonly cpuUserUs: number;
  readonly cpuSystemUs: number;
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
  /** Context switches of the whole process (all threads): voluntary ones are mostly wake-ups. */
  readonly voluntarySwitches: number;
  readonly involuntarySwitches: number;
  readonly packetsIn: number;
  readonly packetsOut: number;
  readonly bytesIn: number;
  readonly bytesOut: number;
  readonly streamsIn: number;
  readonly streamsOut: number;
  readonly streamBytesIn: number;
  readonly streamBytesOut: number;
  readonly probes: number;
  readonly probesFailed: number;
  readonly suspicions: number;
  readonly deaths: number;
  readonly drops: number;
  /** Members this one holds alive, itself included (bare: its peers plus itself); -1 when not asked. */
  readonly alive: number;
}

export interface Ready {
  readonly type: 'ready';
  readonly name: string;
  readonly address: string;
}

export type MemberReply =
  | Sample
  | Ready
  | { readonly type: 'ok' }
  | { readonly type: 'error'; readonly message: string };

interface Args {
  readonly role: 'fdkit' | 'bare';
  readonly entry: string;
  readonly name: string;
  readonly bind: string;
  readonly join: string | undefined;
  readonly lifetimeMs: number;
  readonly pingBytes: number;
  readonly ackBytes: number;
  /** One 32-byte key, in hex: the member encrypts with it. */
  readonly keyringHex: string | undefined;
}

const USAGE =
  'usage: tsx bench/support/cluster-member.ts --role fdkit|bare [--entry URL] [--name NAME] [--bind HOST:PORT] [--join HOST:PORT] [--lifetime-ms MS] [--ping-bytes N] [--ack-bytes N] [--keyring-hex HEX]';

function parseArgs(argv: readonly string[]): Args {
  const f = benchFlags('bench/support/cluster-member.ts', USAGE, argv, {
    role: { kind: 'string' },
    entry: { kind: 'string' },
    name: { kind: 'string' },
    bind: { kind: 'string' },
    join: { kind: 'string' },
    'lifetime-ms': { kind: 'number', min: 0 },
    'ping-bytes': { kind: 'integer', min: 0 },
    'ack-bytes': { kind: 'integer', min: 0 },
    'keyring-hex': { kind: 'string' },
  });
  return {
    role: stringFlag(f, 'role') === 'bare' ? 'bare' : 'fdkit',
    entry: stringFlag(f, 'entry') ?? '',
    name: stringFlag(f, 'name') ?? `member-${process.pid}`,
    bind: stringFlag(f, 'bind') ?? '127.0.0.1:0',
    join: stringFlag(f, 'join'),
    lifetimeMs: numberFlag(f, 'lifetime-ms', 120_000),
    pingBytes: numberFlag(f, 'ping-bytes', 54),
    ackBytes: numberFlag(f, 'ack-bytes', 31),
    keyringHex: stringFlag(f, 'keyring-hex'),
  };
}

function reply(message: MemberReply): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

/** What differs between the two roles. */
interface Member {
  readonly address: string;
  traffic(): Omit<
    Sample,
    | 'type'
    | 'role'
    | 'name'
    | 'address'
    | 'tMs'
    | 'cpuUserUs'
    | 'cpuSystemUs'
    | 'rssBytes'
    | 'heapUsedBytes'
    | 'voluntarySwitches'
    | 'involuntarySwitches'
    | 'alive'
  >;
  alive(): number;
  peers(addresses: readonly string[]): void;
  close(): Promise<void>;
}

async function fdkitMember(args: Args): Promise<Member> {
  const fdkit = (await import(args.entry)) as typeof Fdkit;
  const keyring =
    args.keyringHex === undefined ? undefined : new fdkit.Keyring([Buffer.from(args.keyringHex, 'hex')]);
  const node = fdkit.createNode({
    name: args.name,
    bind: args.bind,
    profile: 'lan',
    ...(keyring === undefined ? {} : { keyring }),
  });
  await node.start();
  if (args.join !== undefined) {
    try {
      await node.join([args.join], { signal: AbortSignal.timeout(10_000) });
    } catch (error) {
      // The member keeps retrying in the background; the parent waits for the cluster to form.
      process.stderr.write(`${args.name}: join: ${error instanceof Error ? error.message : String(error)}\n`);
    }
  }
  return {
    address: node.localAddress,
    traffic() {
      const c = node.counters();
      return {
        packetsIn: c.packetsIn,
        packetsOut: c.packetsOut,
        bytesIn: c.bytesIn,
        bytesOut: c.bytesOut,
        streamsIn: c.streamsIn,
        streamsOut: c.streamsOut,
        streamBytesIn: c.streamBytesIn,
        streamBytesOut: c.streamBytesOut,
        probes: c.probes,
        probesFailed: c.probesFailed,
        suspicions: c.suspicions,
        deaths: c.deaths,
        drops: Object.values(c.drops).reduce((a, b) => a + b, 0),
      };
    },
    alive() {
      let alive = 0;
      for (const m of node.members()) if (m.state === 'alive') alive++;
      return alive;
    },
    peers() {},
    close: () => node.shutdown(),
  };
}

/**
 * A UDP socket and a TCP listener on the same port, as fdkit's transport binds them; with port 0, a
 * TCP port already taken by another process makes it try another ephemeral port (8 attempts).
 */
async function bindPair(host: string, port: number): Promise<[Socket, Server]> {
  for (let attempt = 1; ; attempt++) {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(port, host, () => {
        socket.off('error', reject);
        resolve();
      });
    });
    const server = createServer((s) => s.destroy());
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(socket.address().port, host, () => {
          server.off('error', reject);
          resolve();
        });
      });
      return [socket, server];
    } catch (error) {
      await new Promise<void>((resolve) => socket.close(() => resolve()));
      if (port !== 0 || attempt >= 8) throw error;
    }
  }
}

async function bareMember(args: Args): Promise<Member> {
  const host = args.bind.slice(0, args.bind.lastIndexOf(':'));
  // fdkit binds TCP on the same port for state sync; an idle listener keeps the two processes alike.
  const [socket, server] = await bindPair(host, Number(args.bind.slice(args.bind.lastIndexOf(':') + 1)));
  socket.setRecvBufferSize(2 * 1024 * 1024);
  socket.on('error', () => {});
  const address = `${host}:${socket.address().port}`;
  const ping = Buffer.alloc(args.pingBytes, 0x50);
  const ack = Buffer.alloc(args.ackBytes, 0x41);
  const t = { packetsIn: 0, packetsOut: 0, bytesIn: 0, bytesOut: 0, probes: 0 };
  let targets: { host: string; port: number }[] = [];
  let next = 0;
  const sent = (bytes: number) => (error: Error | null) => {
    if (error !== null) return;
    t.packetsOut++;
    t.bytesOut += bytes;
  };
  socket.on('message', (msg, rinfo) => {
    t.packetsIn++;
    t.bytesIn += msg.length;
    if (msg[0] === 0x50) socket.send(ack, rinfo.port, rinfo.address, sent(ack.length));
  });
  const probe = setInterval(() => {
    if (targets.length === 0) return;
    const target = targets[next]!;
    next = (next + 1) % targets.length;
    t.probes++;
    socket.send(ping, target.port, target.host, sent(ping.length));
  }, 1000);
  return {
    address,
    traffic: () => ({
      ...t,
      streamsIn: 0,
      streamsOut: 0,
      streamBytesIn: 0,
      streamBytesOut: 0,
      probesFailed: 0,
      suspicions: 0,
      deaths: 0,
      drops: 0,
    }),
    alive: () => targets.length + 1,
    peers(addresses) {
      targets = addresses
        .filter((a) => a !== address)
        .map((a) => ({
          host: a.slice(0, a.lastIndexOf(':')),
          port: Number(a.slice(a.lastIndexOf(':') + 1)),
        }));
      // Start at a different place in the ring than the others.
      next = targets.length === 0 ? 0 : process.pid % targets.length;
    },
    async close() {
      clearInterval(probe);
      await new Promise<void>((resolve) => socket.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  setTimeout(() => {
    process.stderr.write(`${args.name}: lifetime of ${args.lifetimeMs} ms reached; exiting\n`);
    process.exit(3);
  }, args.lifetimeMs).unref();
  const member = args.role === 'bare' ? await bareMember(args) : await fdkitMember(args);
  const sample = (withAlive: boolean): Sample => {
    // The clock and the CPU time first: what follows is outside the window that ends here.
    const tMs = Number(process.hrtime.bigint()) / 1e6;
    const cpu = process.cpuUsage();
    const usage = process.resourceUsage();
    const mem = process.memoryUsage();
    return {
      type: 'sample',
      role: args.role,
      name: args.name,
      address: member.address,
      tMs,
      cpuUserUs: cpu.user,
      cpuSystemUs: cpu.system,
      rssBytes: mem.rss,
      heapUsedBytes: mem.heapUsed,
      voluntarySwitches: usage.voluntaryContextSwitches,
      involuntarySwitches: usage.involuntaryContextSwitches,
      ...member.traffic(),
      alive: withAlive ? member.alive() : -1,
    };
  };
  let session: Session | undefined;
  let exiting = false;
  const exit = async (code: number): Promise<void> => {
    if (exiting) return;
    exiting = true;
    await member.close().catch(() => {});
    process.exit(code);
  };
  const post = (method: string, params?: object): Promise<unknown> =>
    new Promise((resolve, reject) =>
      session!.post(method, params ?? {}, (error, result) =>
        error === null ? resolve(result) : reject(error),
      ),
    );
  const commands = createInterface({ input: process.stdin });
  commands.on('line', (line) => {
    const [command, ...rest] = line.trim().split(/\s+/);
    const run = async (): Promise<void> => {
      switch (command) {
        case 'sample':
          reply(sample(rest[0] === 'alive'));
          return;
        case 'peers':
          member.peers(rest);
          reply({ type: 'ok' });
          return;
        case 'profile-start':
          session = new Session();
          session.connect();
          await post('Profiler.enable');
          await post('Profiler.setSamplingInterval', { interval: Number(rest[0] ?? 1000) });
          await post('Profiler.start');
          reply({ type: 'ok' });
          return;
        case 'profile-stop': {
          const { profile } = (await post('Profiler.stop')) as { profile: unknown };
          session?.disconnect();
          session = undefined;
          writeFileSync(rest[0]!, JSON.stringify(profile));
          reply({ type: 'ok' });
          return;
        }
        case 'exit':
          reply(sample(false));
          await exit(0);
          return;
        default:
          reply({ type: 'error', message: `unknown command ${JSON.stringify(command)}` });
      }
    };
    run().catch((error: unknown) =>
      reply({ type: 'error', message: error instanceof Error ? error.message : String(error) }),
    );
  });
  commands.on('close', () => void exit(0));
  reply({ type: 'ready', name: args.name, address: member.address });
}

main().catch((error: unknown) => {
  process.stderr.write(
    `cluster member: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
