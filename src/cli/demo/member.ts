/**
 * One member process of `fdkit demo`, started by the demo with `child_process.fork`: a SWIM node on an
 * ephemeral port of 127.0.0.1 with a leader hint, that reports its address, its membership events, its
 * hint's changes and, a few times a second, its view of the cluster over the IPC channel (`messages.ts`).
 *
 * Arguments: NAME PROFILE STATUS_INTERVAL_MS PRIORITY [SEED] [--http=HOST:PORT]; the priority goes in its
 * metadata (`priority=N`), which is how every member's hint ranks it; with `--http=` it also serves the
 * HTTP API and the status page there (`fdkit demo --http`). It ends when the channel closes: that is how the demo
 * stops it, and also what happens when the demo dies, so a member never outlives its demo.
 */
import { pino } from 'pino';
import { createNode, type SwimNode } from '../../node/node.js';
import { LeaderHint } from '../../omega/leader-hint.js';
import type { Timer } from '../../runtime/clock.js';
import { systemClock } from '../../runtime/system.js';
import type { ProfileName } from '../../swim/profiles.js';
import { parseAddress } from '../../transport/address.js';
import { startAgentHttp } from '../agent-http.js';
import type { MemberMessage, StatusMessage } from './messages.js';

const [name, profile, intervalArg, priority, ...rest] = process.argv.slice(2);
const HTTP_PREFIX = '--http=';
const seed = rest.find((arg) => !arg.startsWith(HTTP_PREFIX));
const http = rest.find((arg) => arg.startsWith(HTTP_PREFIX))?.slice(HTTP_PREFIX.length);
const intervalMs = Number(intervalArg);

function send(message: MemberMessage): void {
  // The callback takes send errors, which only happen once the channel is closing; 'disconnect' follows.
  if (process.connected) process.send?.(message, undefined, {}, () => {});
}

function status(node: SwimNode, hint: LeaderHint): StatusMessage {
  return {
    kind: 'status',
    wallMs: systemClock.wallNow(),
    localHealth: node.localHealth,
    leader: hint.leader,
    epoch: hint.epoch,
    members: node
      .members()
      .map((m) => ({ name: m.name, state: m.state, incarnation: m.incarnation, phi: m.phi })),
  };
}

function httpSpecOf(address: string) {
  const { host, port } = parseAddress(address, { label: '--http', allowPortZero: true });
  return { host, port, token: undefined };
}

async function main(): Promise<void> {
  if (
    name === undefined ||
    profile === undefined ||
    !(intervalMs > 0) ||
    !Number.isFinite(Number(priority)) ||
    process.send === undefined
  ) {
    process.stderr.write('member.js is started by `fdkit demo`, not by hand\n');
    process.exitCode = 2;
    return;
  }
  const logger = pino({ level: 'warn', base: { node: name } }, process.stderr);
  const node = createNode({
    name,
    bind: '127.0.0.1:0',
    profile: profile as ProfileName,
    // 1 instead of the default wall-clock seconds, so that a refutation reads 1 -> 2 in the table. The
    // default protects a member restarted under the same name, which this demo never does.
    incarnation: 1,
    meta: new TextEncoder().encode(`priority=${priority}`),
    logger,
  });
  let timer: Timer | undefined;
  let stopping = false;
  const stop = (): void => {
    stopping = true;
    timer?.cancel();
    node.shutdown().finally(() => process.exit(0));
  };
  process.on('disconnect', stop);
  // Ctrl-C in a terminal reaches the whole process group; the demo stops its members itself, after it
  // restored the terminal, by closing their channels.
  process.on('SIGINT', () => {});
  for (const type of ['alive', 'suspect', 'dead', 'left', 'update'] as const) {
    node.on(type, (e) =>
      send({
        kind: 'event',
        type: e.type,
        member: e.member,
        incarnation: e.incarnation,
        cause: e.cause,
        ...(e.accuser === undefined ? {} : { accuser: e.accuser }),
        wallMs: e.wallMs,
      }),
    );
  }
  await node.start();
  // Started, so the hint reads this member's name and priority from the node; before the join it knows
  // only itself, and it names the best-ranked member as the others appear.
  const hint = new LeaderHint(node);
  hint.on('leader', (c) =>
    send({
      kind: 'leader',
      leader: c.leader,
      previous: c.previous,
      epoch: c.epoch,
      cause: c.cause,
      wallMs: c.wallMs,
    }),
  );
  // The demo checked the address; a member that cannot bind it says so and exits, which ends the demo.
  const served =
    http === undefined
      ? undefined
      : await startAgentHttp(node, httpSpecOf(http), { logger, joined: () => true, left: () => stop() });
  send({ kind: 'ready', address: node.localAddress, ...(served === undefined ? {} : { http: served.url }) });
  const tick = (): void => {
    if (stopping) return;
    send(status(node, hint));
    timer = systemClock.setTimer(intervalMs, tick);
  };
  tick();
  if (seed !== undefined) {
    // A failed first attempt is not the end: the node keeps retrying its seed in the background.
    node.join([seed]).catch(() => {});
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`member ${name}: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
