/**
 * One state-sync message sent by the node: a seed written as a name (`host:port` with a host name, or
 * `srv:NAME`) is resolved first, on every attempt, and the message goes to every address it resolves to.
 * Whatever a receiver writes back on the connection goes to `onReply`: a refusal under fdkit's wire,
 * the answer itself under memberlist's.
 */
import type { Logger } from '../runtime/logger.js';
import { hostKind, parseAddress } from '../transport/address.js';
import { resolveSeeds, type SeedResolver } from '../transport/resolve.js';
import type { Transport } from '../transport/transport.js';

/** What sending needs besides the transport. */
export interface StreamSendContext {
  readonly log: Logger;
  readonly resolver: SeedResolver | undefined;
  /** A reply written back by the receiver at `address`. */
  onReply(address: string, reply: Uint8Array): void;
}

/** Sends `payload` to `address`; resolves with undefined once sent to at least one address, else with why not. */
export async function sendStreamMessage(
  transport: Transport,
  address: string,
  payload: Uint8Array,
  context: StreamSendContext,
): Promise<string | undefined> {
  // The address came from a seed list or from gossip: a bad one, or a name that does not resolve, is
  // a failed exchange to log, never an exception (the core retries on its own schedule).
  let targets = [address];
  try {
    if (address.startsWith('srv:') || hostKind(parseAddress(address).host) === 'name') {
      const resolved = await resolveSeeds([address], context.resolver);
      targets = resolved.addresses.filter((a) => a !== transport.localAddress);
    }
  } catch (error) {
    context.log.debug({ address, error: String(error) }, 'state sync address unusable');
    return errorText(error);
  }
  if (targets.length === 0) {
    context.log.debug({ address }, 'state sync address resolved to nothing but this member');
    return 'it resolved to nothing but this member';
  }
  const send = (target: string): Promise<Uint8Array | undefined> =>
    transport.exchange?.(target, payload) ?? transport.sendStream(target, payload).then(() => undefined);
  const results = await Promise.allSettled(targets.map(send));
  for (const result of results) {
    if (result.status === 'rejected') {
      context.log.debug({ address, error: String(result.reason) }, 'state sync failed');
    } else if (result.value !== undefined) {
      context.onReply(address, result.value);
    }
  }
  if (results.some((r) => r.status === 'fulfilled')) return undefined;
  return results.map((r) => (r.status === 'rejected' ? errorText(r.reason) : '')).join('; ');
}

/** The message of an error, or its text. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
