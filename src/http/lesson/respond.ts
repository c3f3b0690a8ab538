/**
 * How the lesson's server answers: JSON bodies, the error shape of every fdkit HTTP answer, and the page.
 * Nothing here is cached: each answer is computed for its query, and the page is tiny.
 */
import type { ServerResponse } from 'node:http';
import type { ErrorJson } from '../api-types.js';

/** Sends `body` as JSON with `status`. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    ...headers,
  });
  res.end(text);
}

/** Sends an {@link ErrorJson} answer. */
export function sendError(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
): void {
  const body: ErrorJson = { error: { code, message } };
  sendJson(res, status, body, headers);
}

/** Sends an HTML page with its Content-Security-Policy. */
export function sendPage(res: ServerResponse, html: string, policy: string): void {
  res.writeHead(200, {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': Buffer.byteLength(html),
    'Cache-Control': 'no-store',
    'Content-Security-Policy': policy,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  });
  res.end(html);
}
