/**
 * One instance of a small HTTP service that embeds an fdkit member: a SWIM node on 127.0.0.1 (an
 * ephemeral port) that joins its peers, a LeaderHint on it, and a node:http server answering
 *
 * - `GET /members`: this instance's view of the cluster, as JSON;
 * - `GET /leader`: whom this instance's leader hint names, as JSON.
 *
 * Started by `run.ts` with `child_process.fork`: arguments NAME PRIORITY [SEED], where SEED is a peer's
 * gossip address. It tells its parent its addresses over the IPC channel, and leaves the cluster
 * gracefully on SIGTERM, SIGINT or when that channel closes (so it never outlives its parent).
 *
 * In your own service, import from 'fdkit' instead of the source tree.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createNode, LeaderHint, type SwimNode } from '../../src/index.js';

/** What an instance tells `run.ts` once it listens. */
export interface ReadyMessage {
  readonly kind: 'ready';
  readonly name: string;
  /** Where its HTTP API is. */
  readonly http: string;
  /** Its gossip address, for the others to join through. */
  readonly gossip: string;
}

/** The body of `GET /members`. */
export interface MembersBody {
  readonly self: string;
  readonly members: readonly {
    readonly name: string;
    readonly address: string;
    readonly state: string;
    readonly incarnation: number;
    readonly meta: string;
  }[];
}

/** The body of `GET /leader`. */
export interface LeaderBody {
  readonly self: string;
  /** Null once the split-brain resolver downed this side (not used here: always a name). */
  readonly leader: string | null;
  readonly epoch: number;
  readonly isLeader: boolean;
  readonly stableForMs: number;
  readonly note: string;
}

const decoder = new TextDecoder();

function members(node: SwimNode): MembersBody {
  return {
    self: node.localMember.name,
    members: node
      .members()
      .map((m) => ({
        name: m.name,
        address: m.address,
        state: m.state,
        incarnation: m.incarnation,
        meta: decoder.decode(m.meta),
      }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
  };
}

function leader(node: SwimNode, hint: LeaderHint): LeaderBody {
  return {
    self: node.localMember.name,
    leader: hint.leader ?? null,
    epoch: hint.epoch,
    isLeader: hint.isLeader,
    stableForMs: hint.stableForMs,
    note: 'a liveness hint, not a lock: act on it only where acting twice is safe, or fence the resource',
  };
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(`${JSON.stringify(body)}\n`);
}

async function main(): Promise<void> {
  const [name, priority, seed] = process.argv.slice(2);
  if (name === undefined || !Number.isFinite(Number(priority)) || process.send === undefined) {
    process.stderr.write('server.ts is started by run.ts: NAME PRIORITY [SEED], with an IPC channel\n');
    process.exitCode = 2;
    return;
  }
  const node = createNode({
    name,
    bind: '127.0.0.1:0',
    // Every member's leader hint ranks this one by it: the highest priority leads.
    meta: new TextEncoder().encode(`priority=${priority}`),
  });
  await node.start();
  const hint = new LeaderHint(node);
  hint.on('leader', (c) => {
    process.stderr.write(`${name}: leader ${c.previous} -> ${c.leader} (${c.cause}, epoch ${c.epoch})\n`);
  });
  // Without an answer the node keeps retrying its seed in the background: nothing to wait for here.
  if (seed !== undefined) node.join([seed]).catch(() => {});

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'GET') return reply(res, 405, { error: 'GET only' });
    switch (req.url) {
      case '/members':
        return reply(res, 200, members(node));
      case '/leader':
        return reply(res, 200, leader(node, hint));
      default:
        return reply(res, 404, { error: 'try /members or /leader' });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  const ready: ReadyMessage = {
    kind: 'ready',
    name,
    http: `http://127.0.0.1:${port}`,
    gossip: node.localAddress,
  };
  process.send(ready);

  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    hint.stop();
    server.close();
    // Leaving tells the others at once (they report it as left, not dead), instead of a suspicion.
    await node.leave({ timeoutMs: 2000 }).catch(() => {});
    await node.shutdown();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('disconnect', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`server: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
