/**
 * The lease lesson's HTTP side on a real server at 127.0.0.1:0, through fetch: the run answers what
 * `runLeaseLesson` computes for the same inputs, a bad query is a 400 that names the parameter and the
 * value, other paths are 404 and other methods 405, all as JSON; and the page names no external URL.
 */
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLeaseLesson } from '../../src/fencing/lesson/lease-lesson.js';
import { leaseLessonHandler } from '../../src/http/lesson/lesson-handler.js';
import { type LessonServer, startLessonServer } from '../../src/http/lesson/lesson-server.js';

let server: LessonServer;
beforeAll(async () => {
  server = await startLessonServer('127.0.0.1', 0);
});
afterAll(() => server.close());

const url = (path: string) => new URL(path, server.url).href;

async function errorOf(
  path: string,
  init?: RequestInit,
): Promise<{ status: number; code: string; message: string }> {
  const response = await fetch(url(path), init);
  expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  const body = (await response.json()) as { error: { code: string; message: string } };
  expect(Object.keys(body)).toEqual(['error']);
  return { status: response.status, ...body.error };
}

describe('GET /lesson/run', () => {
  it.each([
    { pause: 2000, term: 1000, fencing: false },
    { pause: 2000, term: 1000, fencing: true },
    { pause: 500, term: 1000, fencing: false },
    { pause: 1011, term: 1000, fencing: false },
  ])(
    'answers runLeaseLesson for pause $pause, term $term, fencing $fencing',
    async ({ pause, term, fencing }) => {
      const response = await fetch(url(`/lesson/run?pause=${pause}&term=${term}&fencing=${fencing ? 1 : 0}`));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const input = { pauseMs: pause, termMs: term, fencing };
      expect(await response.json()).toEqual({ input, ...runLeaseLesson(input) });
    },
  );

  it('reads a missing fencing as off, and the bounds of runLeaseLesson as allowed', async () => {
    const off = (await (await fetch(url('/lesson/run?pause=2000&term=1000'))).json()) as {
      doubleCharge: boolean;
    };
    expect(off.doubleCharge).toBe(true);
    for (const query of ['pause=0&term=100', 'pause=600000&term=600000']) {
      expect((await fetch(url(`/lesson/run?${query}`))).status, query).toBe(200);
    }
  });

  it.each([
    ['pause=-1&term=1000', 'pause', "'-1'"],
    ['pause=abc&term=1000', 'pause', "'abc'"],
    ['pause=1.5&term=1000', 'pause', "'1.5'"],
    ['pause=600001&term=1000', 'pause', "'600001'"],
    ['pause=&term=1000', 'pause', "''"],
    ['pause=2000&term=0', 'term', "'0'"],
    ['pause=2000&term=99', 'term', "'99'"],
    ['pause=2000&term=1e3', 'term', "'1e3'"],
    ['pause=2000&term=1000&fencing=yes', 'fencing', "'yes'"],
    ['pause=2000&term=1000&fence=1', 'fence', "'fence'"],
    ['pause=1&pause=2&term=1000', 'pause', 'more than once'],
    ['term=1000', 'pause', 'required'],
    ['pause=2000', 'term', 'required'],
  ])('refuses %s with a 400 naming %s and %s', async (query, parameter, value) => {
    const error = await errorOf(`/lesson/run?${query}`);
    expect(error.status).toBe(400);
    expect(error.code).toBe('FDKIT_HTTP_BAD_REQUEST');
    expect(error.message).toMatch(new RegExp(`parameter '?${parameter}\\b`));
    expect(error.message).toContain(value);
  });

  it('cuts a long value short in the message', async () => {
    const error = await errorOf(`/lesson/run?pause=${'9'.repeat(5000)}&term=1000`);
    expect(error.status).toBe(400);
    expect(error.message.length).toBeLessThan(200);
  });
});

describe('the other answers', () => {
  it('is 404 for another path, the run path with a suffix included', async () => {
    for (const path of ['/nope', '/lesson/run/x', '/lesson/', '/index.html']) {
      const error = await errorOf(path);
      expect(error, path).toMatchObject({ status: 404, code: 'FDKIT_HTTP_NOT_FOUND' });
    }
  });

  it('is 405 for another method than GET, with Allow', async () => {
    for (const [method, path] of [
      ['POST', '/lesson/run?pause=1&term=1000'],
      ['PUT', '/'],
      ['DELETE', '/lesson'],
    ] as const) {
      const response = await fetch(url(path), { method });
      expect(response.status, `${method} ${path}`).toBe(405);
      expect(response.headers.get('allow')).toBe('GET, HEAD');
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('FDKIT_HTTP_METHOD');
    }
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const response = await fetch(url('/'), { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await response.text()).toBe('');
  });

  it('answers a request target that is no path of its own with a 404, and keeps serving', async () => {
    const address = new URL(server.url);
    for (const path of ['*', '//lesson', '/lesson/run%3Fpause=1']) {
      const status = await new Promise<number | undefined>((resolve, reject) => {
        const req = request({ host: address.hostname, port: address.port, path, method: 'GET' }, (res) => {
          res.resume();
          resolve(res.statusCode);
        });
        req.on('error', reject);
        req.end();
      });
      expect(status, path).toBe(404);
    }
    expect((await fetch(url('/'))).status).toBe(200);
  });
});

describe('the page', () => {
  it('is served at / and /lesson, the same self-contained document', async () => {
    const [root, lesson] = await Promise.all([fetch(url('/')), fetch(url('/lesson?x=1'))]);
    expect(root.status).toBe(200);
    expect(lesson.status).toBe(200);
    const html = await root.text();
    expect(await lesson.text()).toBe(html);
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('id="timeline"');
    expect(html).toContain("fetch('/lesson/run?'");
  });

  it('names no URL at all, loads nothing and says so in its policy', async () => {
    const response = await fetch(url('/'));
    const html = await response.text();
    expect(html).not.toMatch(/[a-z][a-z0-9+.-]*:\/\//i);
    expect(html).not.toMatch(/@import|url\(|<script[^>]+src=|<link(?![^>]*href="data:,")[^>]*href=/i);
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("connect-src 'self'");
    expect(policy).not.toContain('unsafe-inline');
    expect(policy).toMatch(/script-src 'sha256-[A-Za-z0-9+/]+=*'/);
  });
});

describe('leaseLessonHandler', () => {
  it('leaves a path not its own to the caller, untouched', async () => {
    const handle = leaseLessonHandler();
    let passed = 0;
    const outer = createServer((req, res) => {
      if (handle(req, res)) return;
      passed++;
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => outer.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(outer.address() as AddressInfo).port}`;
      expect((await fetch(`${base}/metrics`)).status).toBe(204);
      expect((await fetch(`${base}/lesson/run?pause=1&term=1000`)).status).toBe(200);
      expect(passed).toBe(1);
    } finally {
      outer.closeAllConnections();
      await new Promise((resolve) => outer.close(resolve));
    }
  });
});
