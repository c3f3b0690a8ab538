/** Writing answers: JSON bodies, and the one error shape ({@link ErrorJson}) of every failure. */
import type { ServerResponse } from 'node:http';
import type { ErrorJson } from './api-types.js';

/** The error codes the API answers with, beside the HTTP status. */
export type HttpErrorCode =
  | 'FDKIT_HTTP_UNAUTHORIZED'
  | 'FDKIT_HTTP_NOT_FOUND'
  | 'FDKIT_HTTP_METHOD'
  | 'FDKIT_HTTP_BAD_REQUEST'
  | 'FDKIT_HTTP_CONFLICT'
  | 'FDKIT_HTTP_UNAVAILABLE'
  | 'FDKIT_HTTP_JOIN_FAILED'
  | 'FDKIT_HTTP_INTERNAL';

/** Answers `status` with `body` as JSON. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  });
  res.end(text);
}

/** Answers an error; `headers` adds e.g. `allow` or `www-authenticate`. */
export function sendError(
  res: ServerResponse,
  status: number,
  code: HttpErrorCode,
  message: string,
  headers: Readonly<Record<string, string>> = {},
): void {
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  const body: ErrorJson = { error: { code, message } };
  sendJson(res, status, body);
}

/** Answers a text body, e.g. the page or the Prometheus exposition. */
export function sendText(res: ServerResponse, contentType: string, text: string): void {
  res.writeHead(200, {
    'content-type': contentType,
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  });
  res.end(text);
}
