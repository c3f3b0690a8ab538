/**
 * `fdkit events --http ADDR [--json]`: follows the agent's event stream until interrupted, one line
 * per member or leader event.
 */
import type { StreamEventJson } from '../../http/api-types.js';
import { commandFlags } from '../args.js';
import type { CommandIo } from '../trace-command.js';
import { ApiError, apiTarget, CLIENT_FLAGS, request } from './api-client.js';

/** One event as a line for people. */
export function eventLine(event: StreamEventJson): string {
  const at = new Date(event.t).toISOString();
  if (event.kind === 'leader') {
    return `${at} leader ${event.previous} -> ${event.leader} (${event.cause}, epoch ${event.epoch})`;
  }
  const accused = event.accuser === null ? '' : `, by ${event.accuser} +${event.confirmations}`;
  return `${at} ${event.member} ${event.previous} -> ${event.type} (${event.cause}${accused}) inc ${event.incarnation}`;
}

/** The `data:` of each complete event in `buffer`, and what is left of it. */
export function takeEvents(buffer: string): { data: string[]; rest: string } {
  const blocks = buffer.split('\n\n');
  const rest = blocks.pop() ?? '';
  const data = blocks.flatMap((block) => {
    const lines = block.split('\n').filter((line) => line.startsWith('data:'));
    return lines.length === 0 ? [] : [lines.map((line) => line.slice(5).trimStart()).join('\n')];
  });
  return { data, rest };
}

/** Follows the stream; resolves 0 when `signal` aborts, rejects with an `ApiError` when the agent goes. */
export async function runEventsCommand(
  argv: readonly string[],
  io: CommandIo,
  signal: AbortSignal,
): Promise<number> {
  const program = 'fdkit events';
  const flags = commandFlags(program, argv, { ...CLIENT_FLAGS, json: { kind: 'boolean' } });
  const target = apiTarget(program, flags);
  const json = flags.get('json') === true;
  let res: Response;
  try {
    res = await request(target, '/v1/events', { signal, accept: 'text/event-stream' });
  } catch (error) {
    if (signal.aborted) return 0;
    throw error;
  }
  const body = res.body;
  if (body === null) throw new ApiError(`${target.base}/v1/events answered no stream`);
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for await (const chunk of body) {
      buffer += decoder.decode(chunk, { stream: true });
      const { data, rest } = takeEvents(buffer);
      buffer = rest;
      for (const text of data) {
        io.stdout(json ? `${text}\n` : `${eventLine(JSON.parse(text) as StreamEventJson)}\n`);
      }
    }
  } catch (error) {
    if (signal.aborted) return 0;
    throw new ApiError(
      `the event stream of ${target.base} failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (signal.aborted) return 0;
  throw new ApiError(`the agent at ${target.base} ended the event stream`);
}
