/**
 * The agent's `--keyring-file` and `--label` in process: the file format (`src/cli/keyring-file.ts`) and
 * the keys reaching the node. Binds 127.0.0.1 on an ephemeral port and shuts down at once.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { runAgentCommand } from '../../src/cli/agent-command.js';
import { UsageError } from '../../src/cli/args.js';
import { parseKeyringFile } from '../../src/cli/keyring-file.js';
import type { SwimNode } from '../../src/node/node.js';

const k = (fill: number): string => Buffer.alloc(32, fill).toString('base64');
const started: SwimNode[] = [];
const dir = mkdtempSync(join(tmpdir(), 'fdkit-agent-keys-'));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

afterEach(async () => {
  await Promise.all(started.splice(0).map((node) => node.shutdown()));
});

function usage(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as UsageError).message;
  }
  throw new Error('expected a UsageError');
}

describe('parseKeyringFile', () => {
  it('reads one key per line, the first primary, skipping blank and comment lines and CRLF', () => {
    const ring = parseKeyringFile('agent', 'keys', `# primary\r\n${k(2)}\r\n\r\n  ${k(1)}  \n# old\n`);
    expect(ring.keys()).toEqual([new Uint8Array(32).fill(2), new Uint8Array(32).fill(1)]);
  });

  it("reads memberlist's 16- and 24-byte keys too (AES-128, AES-192), and no other length", () => {
    const b64 = (n: number, fill: number): string => Buffer.alloc(n, fill).toString('base64');
    const ring = parseKeyringFile('agent', 'keys', `${b64(16, 3)}\n${b64(24, 4)}\n${k(5)}\n`);
    expect(ring.keys()).toEqual([
      new Uint8Array(16).fill(3),
      new Uint8Array(24).fill(4),
      new Uint8Array(32).fill(5),
    ]);
    for (const n of [8, 15, 20, 31]) {
      expect(usage(() => parseKeyringFile('agent', 'keys', `${b64(n, 1)}\n`))).toMatch(
        /keys:1: not a base64 key/,
      );
    }
  });

  it.each([
    { text: `${k(1)}\nnot base64 at all\n`, says: /keys:2: not a base64 key of 32 bytes/ },
    { text: `${k(1).slice(0, -1)}\n`, says: /keys:1: not a base64 key/ },
    { text: `${Buffer.alloc(33, 1).toString('base64')}\n`, says: /keys:1:/ },
    { text: '\n# nothing\n', says: /keys: no key in the file/ },
  ])('refuses a bad file, naming the line: $says', ({ text, says }) => {
    expect(usage(() => parseKeyringFile('agent', 'keys', text))).toMatch(says);
  });
});

describe('fdkit agent with keys', () => {
  it('hands the keys and the label to the node, and exits 1 on a label over 255 bytes', async () => {
    const path = join(dir, 'keys');
    writeFileSync(path, `${k(3)}\n${k(4)}\n`);
    const exits: number[] = [];
    const stderr = new PassThrough();
    let errors = '';
    stderr.on('data', (chunk: Buffer) => {
      errors += chunk.toString();
    });
    const io = { stdout: () => {}, stderr, exit: (code: number) => exits.push(code) };
    const base = ['--name', 'k1', '--bind', '127.0.0.1:0', '--log-level', 'silent', '--keyring-file', path];
    const node = await runAgentCommand([...base, '--label', 'prod'], io);
    expect(node).toBeDefined();
    started.push(node!);
    expect(node!.keyring?.keys()).toEqual([new Uint8Array(32).fill(3), new Uint8Array(32).fill(4)]);

    expect(await runAgentCommand([...base, '--label', 'x'.repeat(256)], io)).toBeUndefined();
    expect(exits).toEqual([1]);
    expect(errors).toMatch(/option label must be a string of at most 255 UTF-8 bytes/);
  });
});
