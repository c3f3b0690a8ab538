/**
 * Writing answers, for the API and the lesson alike: JSON bodies, the one error shape
 * ({@link ErrorJson}) of every failure, and pages with their Content-Security-Policy.
 */
import type { ServerResponse } from 'node:http';
import type { ErrorJson } from './api-types.js';

/** The error codes fdkit's HTTP answers carry, beside the HTTP status. */
export type HttpErrorCode =
  | 'FDKIT_HTTP_UNAUTHORIZED'
  | 'FDKIT_HTTP_NOT_FOUND'
  | 'FDKIT_HTTP_METHOD'
  | 'FDKIT_HTTP_BAD_REQUEST'
  | 'FDKIT_HTTP_CONFLICT'
  | 'FDKIT_HTTP_UNAVAILABLE'
  | 'FDKIT_HTTP_JOIN_FAILED'
  | 'FDKIT_HTTP_INTERNAL';

// Every answer: never cached (it is the state now), never sniffed into another type.
const COMMON = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' } as const;

/** Answers `status` with `body` as JSON; `headers` adds e.g. `allow` or `www-authenticate`. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...COMMON,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** Answers an error as {@link ErrorJson}. */
export function sendError(
  res: ServerResponse,
  status: number,
  code: HttpErrorCode,
  message: string,
  headers: Readonly<Record<string, string>> = {},
): void {
  const body: ErrorJson = { error: { code, message } };
  sendJson(res, status, body, headers);
}

/** Answers a text body, e.g. the Prometheus exposition. */
export function sendText(res: ServerResponse, contentType: string, text: string): void {
  res.writeHead(200, { ...COMMON, 'content-type': contentType, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Answers an HTML page with its Content-Security-Policy, framed by no other site. */
export function sendPage(res: ServerResponse, html: string, policy: string): void {
  res.writeHead(200, {
    ...COMMON,
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(html),
    'content-security-policy': `${policy}; frame-ancestors 'none'`,
    'referrer-policy': 'no-referrer',
  });
  res.end(html);
}
