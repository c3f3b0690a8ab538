/**
 * `fdkit demo lease` in this process (`runCli`, its streams captured): the text form prints the three
 * cases as `runLeaseLesson` computes them; `--http` takes `[HOST:]PORT`, refuses anything else as a usage
 * mistake naming the flag and the value, serves the lesson until the interrupt signal aborts, and then
 * exits 0; a port it cannot bind is status 1 with the reason.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/cli.js';
import { runLeaseLesson } from '../../src/fencing/lesson/lease-lesson.js';

/** A run of `fdkit ...argv` whose output can be read while it runs, and whose interrupt the test sends. */
function start(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const interrupt = new AbortController();
  let asked = 0;
  let wake = () => {};
  const stream = (sink: string[]) =>
    ({
      isTTY: false,
      write: (text: string) => {
        sink.push(text);
        wake();
        return true;
      },
      on() {
        return this;
      },
    }) as unknown as NodeJS.WriteStream;
  const status = runCli(argv, {
    stdout: stream(out),
    stderr: stream(err),
    env: {},
    exit: () => {},
    interrupted: () => {
      asked++;
      return interrupt.signal;
    },
  });
  /** The first stdout line matching `pattern`, once printed (or the run's end, which fails the test). */
  const line = async (pattern: RegExp): Promise<string> => {
    for (;;) {
      const found = out
        .join('')
        .split('\n')
        .find((l) => pattern.test(l));
      if (found !== undefined) return found;
      const ended = await Promise.race([
        new Promise<false>((resolve) => {
          wake = () => resolve(false);
        }),
        status.then(() => true),
      ]);
      if (ended) throw new Error(`ended first; stdout ${out.join('')}; stderr ${err.join('')}`);
    }
  };
  return {
    status,
    line,
    interrupt: () => interrupt.abort(),
    stdout: () => out.join(''),
    stderr: () => err.join(''),
    asked: () => asked,
  };
}

describe('fdkit demo lease, as text', () => {
  it('prints a pause inside the term, and one past it without and with fencing', async () => {
    const run = start('demo', 'lease');
    expect(await run.status).toBe(0);
    const blocks = run.stdout().trim().split('\n\n');
    expect(blocks.map((b) => b.split('\n')[0])).toEqual([
      'pause 500 ms, term 1000 ms, fencing off: charged once',
      'pause 2000 ms, term 1000 ms, fencing off: charged twice',
      'pause 2000 ms, term 1000 ms, fencing on: stale write refused, charged once',
    ]);
    // One line per step of the lesson, in its order, with its time and its outcome.
    const fenced = runLeaseLesson({ pauseMs: 2000, termMs: 1000, fencing: true });
    const lines = blocks[2]!.split('\n').slice(1);
    expect(lines).toHaveLength(fenced.steps.length);
    expect(lines.at(-1)?.trim()).toBe("2000 ms  storage  A's charge (token 1): refused");
    expect(run.asked()).toBe(0);
  });
});

describe('fdkit demo lease --http', () => {
  it('serves the lesson at the URL it prints, until interrupted, then exits 0', async () => {
    const run = start('demo', 'lease', '--http', '127.0.0.1:0');
    const said = await run.line(/^lease lesson at /);
    const match = /^lease lesson at (http:\/\/127\.0\.0\.1:(\d+)\/)$/.exec(said);
    expect(match, said).not.toBeNull();
    const [, page = '', port] = match!;
    expect(Number(port)).toBeGreaterThan(0);
    const body = await (await fetch(`${page}lesson/run?pause=2000&term=1000&fencing=0`)).json();
    expect(body).toMatchObject({ charges: 2, doubleCharge: true });
    let ended = false;
    void run.status.then(() => {
      ended = true;
    });
    // Still serving: nothing ends it but the interrupt.
    expect((await fetch(page)).status).toBe(200);
    expect(ended).toBe(false);
    run.interrupt();
    expect(await run.status).toBe(0);
    await expect(fetch(page)).rejects.toThrow();
    expect(run.stderr()).toBe('');
  });

  it('binds loopback for a port alone', async () => {
    const run = start('demo', 'lease', '--http=0');
    expect(await run.line(/^lease lesson at /)).toMatch(/^lease lesson at http:\/\/127\.0\.0\.1:\d+\/$/);
    run.interrupt();
    expect(await run.status).toBe(0);
  });

  it('exits 0 at once when interrupted before it listens', async () => {
    const run = start('demo', 'lease', '--http', '127.0.0.1:0');
    run.interrupt();
    expect(await run.status).toBe(0);
  });

  it('is status 1 with the reason for a port it cannot bind', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const port = (taken.address() as AddressInfo).port;
      const run = start('demo', 'lease', '--http', `127.0.0.1:${port}`);
      expect(await run.status).toBe(1);
      expect(run.stderr()).toMatch(
        new RegExp(`^fdkit demo lease: cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`),
      );
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it.each([
    ['nope', 'the port is missing'],
    ['70000', 'the port must be an integer'],
    ['127.0.0.1:', 'the port must be an integer'],
    ['::1:80', 'in brackets'],
    ['-1', 'the port is missing'],
  ])('refuses --http %s as a usage mistake naming the flag and the value', async (value, problem) => {
    const run = start('demo', 'lease', '--http', value);
    expect(await run.status).toBe(2);
    const [message] = run.stderr().split('\n');
    expect(message).toContain(`fdkit demo lease: flag --http takes [HOST:]PORT`);
    expect(message).toContain(`got '${value}'`);
    expect(message).toContain(problem);
    expect(run.asked()).toBe(0);
  });

  it('refuses --http without a value, and an unknown flag', async () => {
    const bare = start('demo', 'lease', '--http');
    expect(await bare.status).toBe(2);
    expect(bare.stderr()).toContain('flag --http needs a value');
    const unknown = start('demo', 'lease', '--port', '1');
    expect(await unknown.status).toBe(2);
    expect(unknown.stderr()).toContain("unexpected argument '--port'");
  });
});
