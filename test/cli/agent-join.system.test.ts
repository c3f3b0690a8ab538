/**
 * `fdkit agent --join` against a seed that refuses it, as real processes on loopback: a joiner whose
 * cluster label differs from the seed's exits 1 at start with the join error's message (code and
 * reason), as serf agent does; with `--retry-join` it stays up and logs the failure instead.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentProcess, BIN, freePort, killAll, waitUntil } from './agent-process.js';

const dir = mkdtempSync(join(tmpdir(), 'fdkit-agent-join-'));
const keyringFile = join(dir, 'keys');
writeFileSync(keyringFile, `${Buffer.alloc(32, 3).toString('base64')}\n`);
const agents: AgentProcess[] = [];
let seed: AgentProcess;

beforeAll(async () => {
  seed = new AgentProcess('seed', await freePort(), ['--keyring-file', keyringFile, '--label', 'a']);
  agents.push(seed);
  await waitUntil(() => !seed.running || seed.listening, 10_000, 50);
  expect(seed.listening).toBe(true);
});

afterAll(async () => {
  await killAll(agents);
});

describe('fdkit agent --join refused', () => {
  it('exits 1 within the join timeout, saying the cluster label differs', async () => {
    const port = await freePort();
    const args = ['--name', 'j1', '--bind', `127.0.0.1:${port}`, '--join', seed.address];
    const child = spawn(
      process.execPath,
      [BIN, 'agent', ...args, '--keyring-file', keyringFile, '--label', 'b'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (s: string) => {
      stderr += s;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    const status = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    clearTimeout(timer);
    expect(status).toBe(1);
    expect(stderr).toContain(
      `fdkit agent: join: seed ${seed.address} refused this member (FDKIT_JOIN_LABEL_MISMATCH)`,
    );
    expect(stderr).toContain('cluster label differs (seed: "a", this member: "b")');
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('with --retry-join stays up and logs the failure, retrying', async () => {
    const joiner = new AgentProcess('j2', await freePort(), [
      '--join',
      seed.address,
      '--retry-join',
      '--keyring-file',
      keyringFile,
      '--label',
      'b',
    ]);
    agents.push(joiner);
    const logged = await waitUntil(
      () =>
        joiner.stderrLines.some(
          (l) => l.includes('join failed, retrying') && l.includes('FDKIT_JOIN_LABEL_MISMATCH'),
        ),
      10_000,
      50,
    );
    expect(logged).toBe(true);
    // Still running a while later: the failure was logged, not fatal.
    await waitUntil(() => !joiner.running, 2000, 100);
    expect(joiner.running).toBe(true);
  });
});
