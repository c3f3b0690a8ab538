/**
 * A TCP connection attempt used as evidence, not as a channel: what the kernel of a member's host says
 * about its port. A refusal (RST) means nothing listens there any more, so the process is gone while the
 * host is up; an accepted connection means the socket is still open (the process may be paused); no
 * answer within the timeout means the host or the path is down. The connection is closed at once.
 */
import { connect } from 'node:net';
import type { ConnectOutcome } from '../membership/connection.js';
import type { Clock } from '../runtime/clock.js';
import { parseAddress } from './address.js';

/** Tries a connection to `address`; never rejects (a bad address is reported as `timeout`). */
export function probeConnect(address: string, timeoutMs: number, clock: Clock): Promise<ConnectOutcome> {
  let host: string;
  let port: number;
  try {
    ({ host, port } = parseAddress(address, { label: 'probe destination' }));
  } catch {
    return Promise.resolve('timeout');
  }
  return new Promise((resolve) => {
    const socket = connect({ host, port, noDelay: true });
    let settled = false;
    const settle = (result: ConnectOutcome): void => {
      if (settled) return;
      settled = true;
      timer.cancel();
      socket.destroy();
      resolve(result);
    };
    const timer = clock.setTimer(timeoutMs, () => settle('timeout'));
    socket.once('connect', () => settle('accepted'));
    socket.once('error', (error: NodeJS.ErrnoException) =>
      // Unreachable hosts and networks are silence as far as evidence goes: only a refusal proves much.
      settle(error.code === 'ECONNREFUSED' ? 'refused' : 'timeout'),
    );
  });
}
