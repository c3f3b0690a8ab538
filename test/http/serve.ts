/** A real HTTP server on 127.0.0.1:0 around a handler, and the reading of an SSE stream. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FdkitHttpHandler } from '../../src/http/handler.js';

/** A listening server and its base URL. */
export interface Served {
  readonly url: string;
  /** Resolves once a request for `path` has reached the handler (which attaches an event stream at once). */
  requested(path: string): Promise<void>;
  close(): Promise<void>;
}

/** Serves `handler` on a free loopback port. */
export async function serve(handler: FdkitHttpHandler): Promise<Served> {
  const server: Server = createServer(handler);
  const seen = new Set<string>();
  const waiting = new Map<string, () => void>();
  // Registered after the handler, so it runs once the handler has taken the request.
  server.on('request', (req) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    seen.add(path);
    waiting.get(path)?.();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requested: (path) =>
      seen.has(path) ? Promise.resolve() : new Promise<void>((resolve) => waiting.set(path, resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        handler.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An open event stream: what it received so far, as text, and a wait for more. */
export interface SseReader {
  text(): string;
  /** Waits until the received text matches, or fails after `guardMs` (a hang guard, not a timing assertion). */
  until(pattern: RegExp, guardMs?: number): Promise<string>;
  /** Resolves when the server ends the stream. */
  ended(guardMs?: number): Promise<void>;
  cancel(): Promise<void>;
}

/** Opens `url` as an event stream with fetch and reads it in the background. */
export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseReader> {
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers } });
  if (res.status !== 200 || res.body === null) throw new Error(`event stream answered ${res.status}`);
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let done = false;
  const waiters = new Set<() => void>();
  const pump = (async () => {
    for (;;) {
      const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
      for (const wake of waiters) wake();
    }
    done = true;
    for (const wake of waiters) wake();
  })();
  const wait = (ok: () => boolean, what: string, guardMs: number): Promise<void> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        if (ok()) {
          waiters.delete(check);
          clearTimeout(guard);
          resolve();
        } else if (done) {
          waiters.delete(check);
          clearTimeout(guard);
          reject(new Error(`stream ended before ${what}; got ${JSON.stringify(text)}`));
        }
      };
      const guard = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no ${what} within ${guardMs} ms; got ${JSON.stringify(text)}`));
      }, guardMs);
      waiters.add(check);
      check();
    });
  return {
    text: () => text,
    until: async (pattern, guardMs = 5_000) => {
      await wait(() => pattern.test(text), String(pattern), guardMs);
      return text;
    },
    ended: (guardMs = 5_000) => wait(() => done, 'end', guardMs),
    cancel: async () => {
      await reader.cancel().catch(() => undefined);
      await pump;
    },
  };
}
