/**
 * Free loopback ports for the processes the system tests start (the fdkit agents of
 * test/cli/agent-process.ts, the Go memberlist agents of test/wire/memberlist/go-agent.ts), in a module
 * of its own so that a harness can take one without loading another's (agent-process.ts needs dist/).
 */
import dgram from 'node:dgram';
import net, { type AddressInfo } from 'node:net';

/** Whether `port` on 127.0.0.1 can be bound over UDP (TCP being already held by the caller). */
function udpFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = dgram.createSocket('udp4');
    socket.once('error', () => {
      try {
        socket.close();
      } catch {
        // Never bound: nothing to close.
      }
      resolve(false);
    });
    socket.bind(port, '127.0.0.1', () => socket.close(() => resolve(true)));
  });
}

/**
 * A port number free on 127.0.0.1 for both TCP and UDP at the time of the call: an ephemeral TCP port
 * that UDP can bind too. Another process may take it before the agent binds it; callers retry when the
 * agent exits with "already in use".
 */
export async function freePort(avoid: ReadonlySet<number> = new Set()): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const server = net.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    const port = (server.address() as AddressInfo).port;
    const ok = !avoid.has(port) && (await udpFree(port));
    await new Promise<void>((resolve) => server.close(() => resolve()));
    if (ok) return port;
  }
  throw new Error('freePort: no port free for both TCP and UDP in 50 attempts');
}
