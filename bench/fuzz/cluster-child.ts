/**
 * The target of the fuzzer: three real `createNode` members on 127.0.0.1 (UDP and TCP, ephemeral ports,
 * the `lan` profile) in a process of their own, so that the RSS, event-loop delay and exceptions it
 * reports are the members' own and not the fuzzer's. Forked by `cluster.ts` with an IPC channel
 * (`protocol.ts` says what is asked and answered).
 *
 * Each member's transport is the default one, tapped: the first datagrams and stream bodies the members
 * send each other are kept, for the fuzzer to replay. Every member event after `mark` is a state change;
 * an uncaught exception or unhandled rejection is recorded, not fatal, so that a run reports all of them.
 * The process exits on `exit`, when its parent goes, and after `--lifetime-ms` in any case.
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { createNode, type SwimNode } from '../../src/node/node.js';
import { isMemberEvent } from '../../src/swim/events.js';
import { createNetTransport } from '../../src/transport/net-transport.js';
import type { TransportOptions } from '../../src/transport/options.js';
import type { Transport } from '../../src/transport/transport.js';
import { Keyring } from '../../src/wire/keyring.js';
import { benchFlags, numberFlag, stringFlag } from '../support/flags.js';
import type { ClusterReply, ClusterRequest, MemberStatus, StateChange } from './protocol.js';

const NAMES = ['fz-a', 'fz-b', 'fz-c'] as const;
const CAPTURED_MAX = 300;
const CHANGES_KEPT = 500;
const FORM_TIMEOUT_MS = 20_000;

const exceptions: string[] = [];
const changes: StateChange[] = [];
let changeCount = 0;
let errorLogs = 0;
const captured = { datagrams: [] as string[], streams: [] as string[] };
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
/** The members' transports, in the order the members started (one at a time). */
const transports: Transport[] = [];

function note(error: unknown): void {
  exceptions.push(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
}

function reply(message: ClusterReply): void {
  process.send?.(message);
}

function keep(list: string[], bytes: Uint8Array): void {
  if (list.length < CAPTURED_MAX) list.push(Buffer.from(bytes).toString('base64'));
}

/** The default transport, with its inbound datagrams and stream bodies copied while there is room. */
async function tappedTransport(options: TransportOptions): Promise<Transport> {
  const transport = await createNetTransport(options);
  transports.push(transport);
  const onDatagram = transport.onDatagram.bind(transport);
  const onStream = transport.onStream.bind(transport);
  transport.onDatagram = (handler) =>
    onDatagram((bytes, from, answer) => {
      keep(captured.datagrams, bytes);
      handler(bytes, from, answer);
    });
  transport.onStream = (handler) =>
    onStream((bytes, from, answer) => {
      keep(captured.streams, bytes);
      handler(bytes, from, answer);
    });
  return transport;
}

const logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {
    errorLogs++;
  },
};

function status(id: number, nodes: readonly SwimNode[]): ClusterReply {
  const members: MemberStatus[] = nodes.map((node, i) => ({
    name: node.localMember.name,
    address: node.localAddress,
    counters: node.counters(),
    view: node.members().map((m) => ({ name: m.name, state: m.state, incarnation: m.incarnation })),
    connectionsOpen: transports[i]?.counters().connectionsOpen ?? 0,
  }));
  const memory = process.memoryUsage();
  const ms = (ns: number): number => (Number.isFinite(ns) ? ns / 1e6 : 0);
  return {
    id,
    type: 'status',
    members,
    changeCount,
    changes: changes.slice(),
    exceptions: exceptions.slice(),
    errorLogs,
    rssBytes: memory.rss,
    heapUsedBytes: memory.heapUsed,
    loopDelayMs: {
      p50: ms(loopDelay.percentile(50)),
      p99: ms(loopDelay.percentile(99)),
      max: ms(loopDelay.max),
    },
  };
}

function formed(nodes: readonly SwimNode[]): boolean {
  return nodes.every((n) => n.members().filter((m) => m.state === 'alive').length === nodes.length);
}

async function main(): Promise<void> {
  const flags = benchFlags(
    'bench/fuzz/cluster-child.ts',
    'usage: forked by bench/fuzz/cluster.ts [--keyring-hex HEX] [--stream-timeout-ms MS] [--lifetime-ms MS]',
    process.argv.slice(2),
    {
      'keyring-hex': { kind: 'string' },
      'stream-timeout-ms': { kind: 'number', min: 1 },
      'lifetime-ms': { kind: 'number', min: 1 },
    },
  );
  setTimeout(() => process.exit(3), numberFlag(flags, 'lifetime-ms', 3_600_000)).unref();
  process.on('disconnect', () => process.exit(0));
  process.on('uncaughtException', note);
  process.on('unhandledRejection', note);
  const hex = stringFlag(flags, 'keyring-hex') ?? '';
  const keyring = hex === '' ? undefined : new Keyring([Buffer.from(hex, 'hex')]);
  const nodes = NAMES.map((name) =>
    createNode({
      name,
      bind: '127.0.0.1:0',
      logger,
      transport: tappedTransport,
      streamTimeoutMs: numberFlag(flags, 'stream-timeout-ms', 10_000),
      ...(keyring === undefined ? {} : { keyring }),
    }),
  );
  for (const node of nodes) {
    await node.start();
    for (const type of ['alive', 'suspect', 'dead', 'left', 'update'] as const) {
      node.on(type, (event) => {
        if (!isMemberEvent(event)) return;
        changeCount++;
        if (changes.length < CHANGES_KEPT) {
          changes.push({
            at: node.localMember.name,
            type,
            member: event.member,
            incarnation: event.incarnation,
            tMs: performance.timeOrigin + performance.now(),
          });
        }
      });
    }
  }
  const seed = nodes[0]!.localAddress;
  await Promise.all(nodes.slice(1).map((node) => node.join([seed])));
  const deadline = Date.now() + FORM_TIMEOUT_MS;
  while (!formed(nodes)) {
    if (Date.now() > deadline) {
      reply({ id: 0, type: 'failed', message: `not formed within ${FORM_TIMEOUT_MS} ms` });
      process.exit(4);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  loopDelay.enable();
  process.on('message', (raw: unknown) => {
    const req = raw as ClusterRequest;
    switch (req.type) {
      case 'status':
        reply(status(req.id, nodes));
        return;
      case 'received':
        reply({ id: req.id, type: 'received', datagramsIn: nodes.map((n) => n.counters().packetsIn) });
        return;
      case 'mark':
        changes.length = 0;
        changeCount = 0;
        loopDelay.reset();
        reply({ id: req.id, type: 'ok' });
        return;
      case 'captures':
        reply({ id: req.id, type: 'captures', ...captured });
        return;
      case 'exit':
        Promise.all(nodes.map((n) => n.shutdown())).then(
          () => {
            reply({ id: req.id, type: 'ok' });
            process.exit(0);
          },
          (error: unknown) => {
            note(error);
            process.exit(5);
          },
        );
    }
  });
  reply({ id: 0, type: 'ready', names: nodes.map((n) => n.localMember.name) });
}

main().catch((error: unknown) => {
  reply({ id: 0, type: 'failed', message: error instanceof Error ? error.message : String(error) });
  process.exit(4);
});
