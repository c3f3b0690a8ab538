/**
 * What `fdkit agent` logs of this member's own fate, in process: a death declared by another member is a
 * warn line on stderr. Binds 127.0.0.1 on an ephemeral port; the death comes as one real datagram.
 */
import { createSocket } from 'node:dgram';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { runAgentCommand } from '../../src/cli/agent-command.js';
import type { SwimNode } from '../../src/node/node.js';
import { parseAddress } from '../../src/transport/address.js';
import { encodePacket } from '../../src/wire/encode.js';
import { poll } from '../support/node-harness.js';

const started: SwimNode[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((node) => node.shutdown()));
});

describe('fdkit agent, told of its own death', () => {
  it('logs it at warn, with the accuser, and refutes', async () => {
    const stderr = new PassThrough();
    const lines: Array<Record<string, unknown>> = [];
    let rest = '';
    stderr.on('data', (chunk: Buffer) => {
      const parts = (rest + chunk.toString()).split('\n');
      rest = parts.pop()!;
      for (const line of parts) lines.push(JSON.parse(line) as Record<string, unknown>);
    });
    const io = { stdout: () => {}, stderr, exit: () => {} };
    const node = await runAgentCommand(['--name', 'a1', '--bind', '127.0.0.1:0', '--log-level', 'warn'], io);
    started.push(node!);
    const incarnation = node!.localMember.incarnation;
    const { host, port } = parseAddress(node!.localAddress);
    const socket = createSocket('udp4');
    const death = encodePacket({
      type: 'gossip',
      from: 'peer',
      updates: [{ kind: 'dead', name: 'a1', incarnation, from: 'peer' }],
    });
    await new Promise<void>((resolve, reject) =>
      socket.send(death, port, host, (error) => (error ? reject(error) : resolve())),
    );
    socket.close();
    const said = () => lines.filter((l) => String(l.msg).startsWith('declared dead'));
    await poll(() => said().length > 0, 'the warn line');
    expect(said()).toEqual([
      expect.objectContaining({ level: 40, node: 'a1', accuser: 'peer', incarnation, refuted: true }),
    ]);
    expect(node!.localMember.incarnation).toBe(incarnation + 1);
  });
});
