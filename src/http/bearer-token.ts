/**
 * The bearer token: `Authorization: Bearer T` on every request, or `?token=T` on the event stream,
 * since a browser's EventSource cannot send headers. Compared in constant time, so that the answer's
 * timing tells nothing of how much of a guess was right.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** Checks requests against one token. */
export class BearerToken {
  private readonly expected: Buffer;

  constructor(token: string) {
    this.expected = digest(token);
  }

  /** True when `req` carries the token in its header, or in `query` when that is allowed. */
  admits(req: IncomingMessage, query: string | null): boolean {
    const header = req.headers.authorization;
    const match = header === undefined ? null : /^Bearer\s+(.+)$/i.exec(header.trim());
    const offered = match?.[1] ?? query;
    // Equal-length digests: timingSafeEqual throws on lengths that differ, and leaks them.
    return offered !== null && timingSafeEqual(digest(offered), this.expected);
  }
}
