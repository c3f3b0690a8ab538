/**
 * A server of the lease lesson alone, for `fdkit demo lease --http` and the page's tests: the lesson's
 * handler, and a JSON 404 for every other path. It binds the host it is given; the command's default,
 * loopback, is the command's to choose.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sendError } from '../respond.js';
import { leaseLessonHandler } from './lesson-handler.js';

/** A listening lesson server. */
export interface LessonServer {
  /** The page's URL, e.g. `http://127.0.0.1:8080/`. */
  readonly url: string;
  /** Stops listening and ends open connections; resolves once the server has closed. */
  close(): Promise<void>;
}

/** Starts the lesson's server on `host:port` (port 0 for any free port). */
export async function startLessonServer(host: string, port: number): Promise<LessonServer> {
  const handle = leaseLessonHandler();
  const server = createServer((req, res) => {
    if (!handle(req, res)) {
      const path = (req.url ?? '/').split('?')[0];
      sendError(
        res,
        404,
        'FDKIT_HTTP_NOT_FOUND',
        `no such path: ${path}; the lesson is at / and /lesson/run`,
      );
    }
  });
  await listen(server, host, port);
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shown}:${address.port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // A browser keeps its connection open; waiting for it to go would wait for the browser.
        server.closeAllConnections();
      }),
  };
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
