/**
 * The command line's side of the agent's HTTP API: `--http ADDR` and `--token-file`, and requests whose
 * failures become one line for the operator (the agent is down, the token is wrong), not a stack trace.
 */
import { readFileSync } from 'node:fs';
import type { ErrorJson } from '../../http/api-types.js';
import { type FlagSpec, type ParsedFlags, stringFlag, UsageError } from '../args.js';

/** The flags every client command takes. */
export const CLIENT_FLAGS: Readonly<Record<string, FlagSpec>> = {
  http: { kind: 'string' },
  'token-file': { kind: 'string' },
};

/** A failure to report and exit 1 on: the agent refused, or could not be reached. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
}

/** The agent to talk to. */
export interface ApiTarget {
  /** Its base URL, without a trailing slash. */
  readonly base: string;
  readonly token: string | undefined;
}

/** `--http` as a base URL: `PORT` (loopback), `HOST:PORT` or `http://HOST:PORT`. */
export function apiTarget(program: string, flags: ParsedFlags): ApiTarget {
  const http = stringFlag(flags, 'http');
  if (http === undefined)
    throw new UsageError(`${program}: --http ADDR is required (the agent's --http address)`);
  const withScheme = /^\d+$/.test(http)
    ? `http://127.0.0.1:${http}`
    : /^https?:\/\//.test(http)
      ? http
      : `http://${http}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new UsageError(`${program}: --http takes PORT, HOST:PORT or http://HOST:PORT, got '${http}'`);
  }
  if (url.port === '' || url.pathname !== '/' || url.search !== '') {
    throw new UsageError(`${program}: --http takes PORT, HOST:PORT or http://HOST:PORT, got '${http}'`);
  }
  const file = stringFlag(flags, 'token-file');
  let token: string | undefined;
  if (file !== undefined) {
    try {
      token = readFileSync(file, 'utf8').trim();
    } catch (error) {
      throw new UsageError(
        `${program}: --token-file ${file}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  return { base: `${url.protocol}//${url.host}`, token };
}

function headersOf(target: ApiTarget): Record<string, string> {
  return target.token === undefined ? {} : { authorization: `Bearer ${target.token}` };
}

/** Sends one request; rejects with an {@link ApiError} that says what went wrong. */
export async function request(
  target: ApiTarget,
  path: string,
  init: { method?: 'GET' | 'POST'; signal?: AbortSignal; accept?: string } = {},
): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(`${target.base}${path}`, {
      method: init.method ?? 'GET',
      headers: { ...headersOf(target), accept: init.accept ?? 'application/json' },
      ...(init.signal === undefined ? {} : { signal: init.signal }),
    });
  } catch (error) {
    if (init.signal?.aborted === true) throw error;
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new ApiError(
      `cannot reach the agent at ${target.base} (${cause?.code ?? cause?.message ?? String(error)}): is it running with --http?`,
    );
  }
  if (res.ok) return res;
  let detail = `${res.status} ${res.statusText}`;
  try {
    const body = (await res.json()) as Partial<ErrorJson>;
    if (body.error !== undefined) detail = `${res.status} ${body.error.code}: ${body.error.message}`;
  } catch {
    // Not our JSON (a proxy's page): the status line says enough.
  }
  throw new ApiError(`${target.base}${path} answered ${detail}`);
}

/** GETs `path` and parses its JSON. */
export async function getJson<T>(target: ApiTarget, path: string): Promise<T> {
  return (await (await request(target, path)).json()) as T;
}
