/**
 * `fdkit demo lease --http 127.0.0.1:0` from the build, as a person runs it: it prints the URL it listens
 * on, serves the lesson there, and exits 0 on SIGINT or SIGTERM once its server has closed.
 *
 * A real process: every wait is bounded, and no time is asserted but the bound on the exit.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { distPath } from '../support/fresh-dist.js';

const BIN = distPath('cli/main.js');
const children = new Set<ChildProcess>();
afterEach(() => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  children.clear();
});

/** Starts the command; resolves with it and the URL of its first stdout line. */
async function serve(): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
  const child = spawn(process.execPath, [BIN, 'demo', 'lease', '--http', '127.0.0.1:0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const lines = createInterface({ input: child.stdout! });
  const first = await new Promise<string>((resolve, reject) => {
    const timer = globalThis.setTimeout(
      () => reject(new Error(`no URL within 15 s; stderr: ${stderr}`)),
      15_000,
    );
    lines.once('line', (line) => {
      clearTimeout(timer);
      resolve(line);
    });
    child.once('exit', (code) => reject(new Error(`exited ${code} first; stderr: ${stderr}`)));
  });
  const match = /^lease lesson at (http:\/\/127\.0\.0\.1:\d+\/)$/.exec(first);
  if (match === null) throw new Error(`first line is not the URL: ${first}`);
  return { child, url: match[1]!, stderr: () => stderr };
}

function exit(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const timer = globalThis.setTimeout(() => reject(new Error('did not exit within 10 s')), 10_000);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal });
    });
  });
}

describe('fdkit demo lease --http', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)('serves the lesson, and exits 0 on %s', async (signal) => {
    const { child, url, stderr } = await serve();
    const run = await fetch(`${url}lesson/run?pause=2000&term=1000&fencing=1`);
    expect(run.status).toBe(200);
    expect(await run.json()).toMatchObject({ charges: 1, doubleCharge: false });
    // A browser's keep-alive connection is open when the signal comes: it must not hold the exit.
    const page = await fetch(url, { keepalive: true });
    expect(page.status).toBe(200);
    const ended = exit(child);
    child.kill(signal);
    expect(await ended).toEqual({ code: 0, signal: null });
    expect(stderr()).toBe('');
  });
});
