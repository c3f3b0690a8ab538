/** The body of `POST /v1/join`: `{"seeds": ["host:port", ...]}`, read with a bound on its size. */
import type { IncomingMessage } from 'node:http';
import { checkSeed } from '../transport/resolve.js';

// A join body is a few seeds; anything far larger is a mistake or an attack, refused before it is buffered.
const BODY_MAX_BYTES = 64 * 1024;
const SEEDS_MAX = 64;

function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_MAX_BYTES) {
        // Stop reading, not the socket: the 413 still goes out, and its `connection: close` ends the rest.
        req.pause();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** A body past the bound: answered 413, on a connection closed after it. */
export const TOO_LARGE = `the body must be at most ${BODY_MAX_BYTES} bytes`;

/** The seeds of a join request, each checked; or what is wrong with the body, as a message. */
export async function readJoinSeeds(req: IncomingMessage): Promise<readonly string[] | string> {
  const text = await readBody(req);
  if (text === undefined) return TOO_LARGE;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return 'the body must be JSON: {"seeds": ["host:port", ...]}';
  }
  const seeds = (body as { seeds?: unknown } | null)?.seeds;
  if (!Array.isArray(seeds) || seeds.length === 0 || seeds.length > SEEDS_MAX) {
    return `seeds must be an array of 1 to ${SEEDS_MAX} addresses`;
  }
  for (const seed of seeds) {
    if (typeof seed !== 'string') return `seeds must be strings, got ${JSON.stringify(seed)}`;
    try {
      checkSeed(seed);
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }
  return seeds as string[];
}
