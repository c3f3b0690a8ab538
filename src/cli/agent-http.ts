/**
 * `fdkit agent --http [HOST:]PORT`: the agent's HTTP API (docs/http.md), with its own leader hint and
 * a metrics registry of its own. Off unless asked for; on loopback unless told otherwise, and a
 * non-loopback address needs a bearer token, since the API can make the member leave.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { MissingDependencyError, NetworkError } from '../errors.js';
import { fdkitHttpHandler } from '../http/handler.js';
import { TOKEN_MIN_LENGTH } from '../http/handler-options.js';
import type { HttpMetricsSource } from '../http/http-source.js';
import { fdkitMetrics } from '../metrics/fdkit-metrics.js';
import { loadPromClient } from '../metrics/prom-client.js';
import type { SwimNode } from '../node/node.js';
import { type DowningEvents, LeaderHint } from '../omega/leader-hint.js';
import { parseAddress } from '../transport/address.js';
import { type ParsedFlags, stringFlag, UsageError } from './args.js';

/** Where the API listens, and the token it asks for. */
export interface AgentHttpSpec {
  readonly host: string;
  readonly port: number;
  readonly token: string | undefined;
}

/** The flags of `fdkit agent` for HTTP. */
export const AGENT_HTTP_FLAGS = {
  http: { kind: 'string' },
  'http-token-file': { kind: 'string' },
} as const;

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * The HTTP part of a command's flags (`fdkit agent`, `fdkit demo`), checked before anything starts;
 * undefined without `--http`.
 */
export function agentHttpSpec(flags: ParsedFlags, program = 'fdkit agent'): AgentHttpSpec | undefined {
  const http = stringFlag(flags, 'http');
  const tokenFile = stringFlag(flags, 'http-token-file');
  if (http === undefined) {
    if (tokenFile !== undefined) throw new UsageError(`${program}: --http-token-file needs --http`);
    return undefined;
  }
  const address = /^\d+$/.test(http) ? `127.0.0.1:${http}` : http;
  let host: string;
  let port: number;
  try {
    ({ host, port } = parseAddress(address, { label: '--http', allowPortZero: true }));
  } catch (error) {
    throw new UsageError(`${program}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const token = tokenFile === undefined ? undefined : readToken(program, tokenFile);
  if (token === undefined && !isLoopback(host)) {
    throw new UsageError(
      `${program}: --http ${http} is not a loopback address; the API can make the member leave, so anything but loopback needs --http-token-file`,
    );
  }
  return { host, port, token };
}

function readToken(program: string, path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(
      `${program}: --http-token-file ${path}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const token = text.trim();
  if (token.length < TOKEN_MIN_LENGTH || /\s/.test(token)) {
    throw new UsageError(
      `${program}: --http-token-file ${path} must hold one token of at least ${TOKEN_MIN_LENGTH} characters without white space, got ${token.length} characters`,
    );
  }
  return token;
}

/** What the agent needs to serve and to stop serving. */
export interface AgentHttpContext {
  readonly logger: Logger;
  /** Whether the agent has joined its seeds (or started alone). */
  readonly joined: () => boolean;
  /** Called once a `POST /v1/leave` has left: shut down and exit. */
  readonly left: () => void;
  /** The split-brain resolver's decisions, with `--downing`: the hint names only the side that stays. */
  readonly downing?: DowningEvents | undefined;
}

/** The API being served. */
export interface AgentHttp {
  /** The base URL, e.g. `http://127.0.0.1:8080`. */
  readonly url: string;
  /** Closes the server, the streams, the metrics and the hint. */
  close(): Promise<void>;
}

/**
 * How often the event-loop delay is sampled for `nodejs_eventloop_lag_*`, ms. Node records the whole
 * interval between two samples, so an idle loop reads this much, not 0: the delay is the excess.
 */
export const EVENT_LOOP_SAMPLE_MS = 1000;

async function agentMetrics(
  node: SwimNode,
  hint: LeaderHint,
  logger: Logger,
): Promise<{ registry: HttpMetricsSource; close: () => void } | undefined> {
  try {
    const prom = await loadPromClient('fdkit agent --http');
    const registry = new prom.Registry();
    // The process's own figures (heap, RSS, handles, timers, event-loop delay) beside the member's: an
    // operator, and the soak (bench/soak/), watch an agent for leaks through them. The agent owns its
    // process, so it registers them; a library user's own registry is theirs to fill. The delay is
    // sampled once a second, not at prom-client's 10 ms: an idle agent wakes about four times a second on
    // its own, and sampling every 100 ms took that to 14 and its CPU up by a third (20 agents, side by
    // side). A stall shows when it holds up a sample: always past a second, else with odds of its length.
    prom.collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
    const metrics = await fdkitMetrics(node, { registry, leader: hint });
    return { registry, close: () => metrics.close() };
  } catch (error) {
    if (!(error instanceof MissingDependencyError)) throw error;
    logger.warn('prom-client is not installed: /metrics answers 404 (npm install prom-client)');
    return undefined;
  }
}

/** Serves the API of a started `node`; rejects with a `NetworkError` when the address cannot be bound. */
export async function startAgentHttp(
  node: SwimNode,
  spec: AgentHttpSpec,
  context: AgentHttpContext,
): Promise<AgentHttp> {
  const hint = new LeaderHint(node, context.downing === undefined ? {} : { downing: context.downing });
  const metrics = await agentMetrics(node, hint, context.logger);
  const handler = fdkitHttpHandler(node, {
    leader: hint,
    joined: context.joined,
    onLeave: () => context.left(),
    ...(metrics === undefined ? {} : { metrics: metrics.registry }),
    ...(spec.token === undefined ? {} : { token: spec.token }),
  });
  const server: Server = createServer(handler);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(spec.port, spec.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    handler.close();
    hint.stop();
    metrics?.close();
    const inUse = (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
    throw new NetworkError(
      inUse ? 'FDKIT_ADDRESS_IN_USE' : 'FDKIT_BIND_FAILED',
      `${spec.host}:${spec.port}`,
      `--http cannot listen on ${spec.host}:${spec.port}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  const { port } = server.address() as AddressInfo;
  const host = spec.host.includes(':') ? `[${spec.host}]` : spec.host;
  const url = `http://${host}:${port}`;
  context.logger.info({ url, token: spec.token !== undefined }, 'http api listening');
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        handler.close();
        hint.stop();
        metrics?.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
