/**
 * fdkit's memberlist codec against the Go libraries memberlist uses (Debian's go-msgpack, compress/lzw,
 * crypto/aes+cipher), both ways: the Go program in go-vectors/ (built offline, as bench/peers builds its
 * agent) prints the bytes Go writes for each message, LZW input and seal, which must equal fdkit's
 * bytes and decode to the same values; and it decodes what fdkit writes (with fdkit's extra `Fdkit` key,
 * which Go must skip), printing the fields it read.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { encodeMlCompress } from '../../../src/wire/memberlist/compress.js';
import { lzwCompress, lzwDecompress } from '../../../src/wire/memberlist/lzw.js';
import { decodeMlMessage, encodeMlMessage } from '../../../src/wire/memberlist/messages.js';
import { decodeMlPacket, encodeMlPacket } from '../../../src/wire/memberlist/packet.js';
import { decryptMl, encryptMl } from '../../../src/wire/memberlist/security.js';
import { encodeMlStream, MlStreamReader } from '../../../src/wire/memberlist/stream.js';
import type { MlErr, MlPacketMessage, MlStreamMessage } from '../../../src/wire/memberlist/types.js';
import { goBuildOffline } from '../../support/go-build.js';

const SOURCE = join(dirname(fileURLToPath(import.meta.url)), 'go-vectors');
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const unhex = (h: string) => new Uint8Array(Buffer.from(h, 'hex'));
const zeros = (b: Uint8Array) => b.fill(0);
const bytes = (...b: number[]) => new Uint8Array(b);
const VSN = bytes(1, 5, 2, 0, 0, 0);

let binary = '';
let vectors: Record<string, { hex: string; input?: string }> = {};

function build(): string {
  const dir = join(tmpdir(), 'fdkit-go-vectors-build');
  mkdirSync(dir, { recursive: true });
  const out = join(dir, 'go-vectors');
  goBuildOffline(SOURCE, out, dir, 'go-vectors');
  return out;
}

function run(args: string[], input = ''): string {
  const r = spawnSync(binary, args, { input, encoding: 'utf8', timeout: 60_000, maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`go-vectors ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

/** What Go read from each line of `lines` ("<kind> <hex>"). */
function goDecode(lines: string[]): unknown[] {
  return run(['decode'], `${lines.join('\n')}\n`)
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as unknown);
}

const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

beforeAll(() => {
  binary = build();
  vectors = JSON.parse(run(['vectors'])) as typeof vectors;
}, 300_000);

const MESSAGES: Record<string, MlPacketMessage | MlErr> = {
  ping: { type: 'ping', seqNo: 7, node: 'n1' },
  'ping-source': {
    type: 'ping',
    seqNo: 300,
    node: 'b',
    sourceAddr: bytes(127, 0, 0, 1),
    sourcePort: 7946,
    sourceNode: 'a',
  },
  'indirect-ping': {
    type: 'indirect-ping',
    seqNo: 1,
    target: bytes(10, 0, 0, 2),
    port: 80,
    node: 'x',
    nack: true,
  },
  ack: { type: 'ack', seqNo: 5, payload: bytes() },
  'ack-payload': { type: 'ack', seqNo: 70_000, payload: new Uint8Array(40).fill(7) },
  nack: { type: 'nack', seqNo: 0xffff_ffff },
  suspect: { type: 'suspect', incarnation: 128, node: 'n', from: 'm' },
  alive: {
    type: 'alive',
    incarnation: 1,
    node: 'node-éa',
    addr: bytes(1, 2, 3, 4),
    port: 7946,
    meta: new Uint8Array(300).fill(9),
    vsn: VSN,
  },
  'alive-v6': {
    type: 'alive',
    incarnation: 65_536,
    node: 'n'.repeat(40),
    addr: new Uint8Array(16),
    port: 1,
    meta: bytes(),
    vsn: VSN,
  },
  dead: { type: 'dead', incarnation: 2, node: 'n', from: 'n' },
  err: { type: 'err', error: 'remote error' },
};

const PUSH_PULL: MlStreamMessage = {
  type: 'push-pull',
  join: true,
  nodes: [
    { name: 'a', addr: bytes(127, 0, 0, 1), port: 7946, meta: bytes(), incarnation: 1, state: 0, vsn: VSN },
    {
      name: 'b',
      addr: bytes(127, 0, 0, 2),
      port: 7947,
      meta: bytes(109),
      incarnation: 9,
      state: 3,
      vsn: VSN,
    },
  ],
  userState: bytes(0xaa, 0xbb, 0xcc),
};
const PLAIN_STREAM = { label: '', keys: [], compress: false, labelHeader: false };

describe('Go writes, fdkit reads and writes the same bytes', () => {
  it('every message', () => {
    for (const [name, m] of Object.entries(MESSAGES)) {
      const go = vectors[name]!.hex;
      expect([name, hex(encodeMlMessage(m))]).toEqual([name, go]);
      const decoded = decodeMlMessage(unhex(go));
      expect([name, decoded.ok && decoded.message]).toEqual([name, m]);
    }
  });

  it('a push-pull and a stream user message', () => {
    expect(hex(encodeMlStream(PUSH_PULL, PLAIN_STREAM, zeros))).toBe(vectors['push-pull']!.hex);
    const step = new MlStreamReader({ label: '', keys: [], labelHeader: false }).push(
      unhex(vectors['push-pull']!.hex),
    );
    expect(step.ok && step.done && step.message).toEqual(PUSH_PULL);
    expect(hex(encodeMlStream({ type: 'user', payload: bytes(1, 2) }, PLAIN_STREAM, zeros))).toBe(
      vectors['user-stream']!.hex,
    );
  });

  it("LZW: fdkit's compressor writes Go's bytes, and decompresses them", () => {
    for (const name of ['lzw-a', 'lzw-empty', 'lzw-tobe', 'lzw-repetitive', 'lzw-random']) {
      const { hex: go, input } = vectors[name]!;
      expect([name, hex(lzwCompress(unhex(input ?? '')))]).toEqual([name, go]);
      expect([name, lzwDecompress(unhex(go), 1 << 20)]).toEqual([name, unhex(input ?? '')]);
    }
  });

  it('the compress message, the CRC header and the seals', () => {
    const ack = encodeMlMessage(MESSAGES.ack!);
    expect(hex(encodeMlCompress(ack))).toBe(vectors['compress-ack']!.hex);
    const options = { label: '', keys: [], compress: false, crc: true };
    expect(hex(encodeMlPacket([MESSAGES.ack as MlPacketMessage], options, zeros))).toBe(
      vectors['crc-ack']!.hex,
    );
    const decoded = decodeMlPacket(unhex(vectors['compress-ack']!.hex), { label: '', keys: [] });
    expect(decoded.ok && decoded.kind === 'messages' && decoded.messages).toEqual([MESSAGES.ack]);
    const k16 = new Uint8Array(16).fill(1);
    const k24 = new Uint8Array(24).fill(4);
    const k32 = new Uint8Array(32).fill(2);
    expect(hex(encryptMl(k16, ack, Buffer.from('prod'), zeros))).toBe(vectors['seal-v1-aes128-label']!.hex);
    expect(hex(encryptMl(k24, ack, bytes(), zeros))).toBe(vectors['seal-v1-aes192']!.hex);
    expect(hex(encryptMl(k32, ack, bytes(), zeros))).toBe(vectors['seal-v1-aes256']!.hex);
    expect(decryptMl([k32, k16], unhex(vectors['seal-v0-aes128']!.hex), bytes())).toEqual(ack);
  });
});

describe('fdkit writes, Go reads', () => {
  it('every message, with the fdkit mark skipped', () => {
    const ping: MlPacketMessage = {
      type: 'ping',
      seqNo: 9,
      node: 'go',
      sourceAddr: bytes(10, 1, 2, 3),
      sourcePort: 7000,
      sourceNode: 'ts',
      fdkit: 1,
    };
    const indirect: MlPacketMessage = {
      type: 'indirect-ping',
      seqNo: 2,
      target: new Uint8Array(16).fill(1),
      port: 65_535,
      node: 'go',
      nack: false,
      fdkit: 1,
    };
    const alive = MESSAGES.alive as MlPacketMessage;
    const lines = [
      ping,
      indirect,
      alive,
      MESSAGES.dead!,
      MESSAGES.suspect!,
      MESSAGES['ack-payload']!,
      MESSAGES.nack!,
      MESSAGES.err!,
    ].map((m) => `${m.type} ${hex(encodeMlMessage(m))}`);
    const got = goDecode(lines);
    expect(got).toEqual([
      {
        value: {
          SeqNo: 9,
          Node: 'go',
          SourceAddr: b64(bytes(10, 1, 2, 3)),
          SourcePort: 7000,
          SourceNode: 'ts',
        },
      },
      {
        value: {
          SeqNo: 2,
          Target: b64(new Uint8Array(16).fill(1)),
          Port: 65_535,
          Node: 'go',
          Nack: false,
          SourceAddr: null,
          SourcePort: 0,
          SourceNode: '',
        },
      },
      {
        value: {
          Incarnation: 1,
          Node: 'node-éa',
          Addr: b64(bytes(1, 2, 3, 4)),
          Port: 7946,
          Meta: b64(new Uint8Array(300).fill(9)),
          Vsn: b64(VSN),
        },
      },
      { value: { Incarnation: 2, Node: 'n', From: 'n' } },
      { value: { Incarnation: 128, Node: 'n', From: 'm' } },
      { value: { SeqNo: 70_000, Payload: b64(new Uint8Array(40).fill(7)) } },
      { value: { SeqNo: 0xffff_ffff } },
      { value: { Error: 'remote error' } },
    ]);
  });

  it('a push-pull with the fdkit mark, LZW, compress messages and seals', () => {
    const pp = encodeMlStream({ ...PUSH_PULL, fdkit: 1 } as MlStreamMessage, PLAIN_STREAM, zeros);
    const big = new Uint8Array(50_000).map((_, i) => (i * 31) % 251);
    const k24 = new Uint8Array(24).fill(4);
    const sealed = encodeMlPacket(
      [MESSAGES.nack as MlPacketMessage],
      { label: 'prod', keys: [k24], compress: true, crc: true },
      zeros,
    );
    const got = goDecode([
      `push-pull ${hex(pp)}`,
      `lzw ${hex(lzwCompress(big))}`,
      `compress ${hex(encodeMlCompress(encodeMlMessage(MESSAGES.nack!)))}`,
      // The packet as memberlist receives it: the label header off, then open under the label.
      `open ${hex(k24)} ${hex(Buffer.from('prod'))} ${hex(sealed.subarray(6))}`,
    ]);
    const node = (n: (typeof PUSH_PULL & { type: 'push-pull' })['nodes'][number]) => ({
      Name: n.name,
      Addr: b64(n.addr),
      Port: n.port,
      Meta: n.meta.length === 0 ? null : b64(n.meta),
      Incarnation: n.incarnation,
      State: n.state,
      Vsn: b64(n.vsn),
    });
    const nodes = PUSH_PULL.type === 'push-pull' ? PUSH_PULL.nodes.map(node) : [];
    expect(got[0]).toEqual({
      value: { header: { Nodes: 2, UserStateLen: 3, Join: true }, nodes, user: 'aabbcc' },
    });
    expect(got[1]).toEqual({ value: hex(big) });
    expect(got[2]).toEqual({ value: { algo: 0, payload: hex(encodeMlMessage(MESSAGES.nack!)) } });
    const crcPlain = (got[3] as { value: string }).value;
    expect(crcPlain.slice(0, 2)).toBe('0c');
    expect(decodeMlPacket(unhex(crcPlain), { label: '', keys: [] })).toMatchObject({
      ok: true,
      messages: [MESSAGES.nack],
    });
  });
});
