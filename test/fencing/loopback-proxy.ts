/**
 * A TCP relay on 127.0.0.1 in front of a loopback server, for tests that cut one client off as a crash
 * or a partition would: closing an etcd3 client does not end the gRPC streams it has open (its keep-alives
 * would go on), while cutting the relay ends every connection at once and refuses new ones.
 */
import { createConnection, createServer, type Socket } from 'node:net';

/** A relay started by {@link startRelay}. */
export interface Relay {
  /** The URL to connect through, such as `http://127.0.0.1:41234`. */
  readonly endpoint: string;
  /** Destroys every connection and stops accepting new ones; the port then refuses. */
  cut(): Promise<void>;
}

/** Relays connections to `127.0.0.1:<targetPort>`. */
export async function startRelay(targetPort: number): Promise<Relay> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server = createServer((incoming) => {
    const outgoing = createConnection({ host: '127.0.0.1', port: targetPort });
    track(incoming);
    track(outgoing);
    incoming.pipe(outgoing).pipe(incoming);
    incoming.once('close', () => outgoing.destroy());
    outgoing.once('close', () => incoming.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the relay has no port');
  let cutting: Promise<void> | undefined;
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    cut() {
      cutting ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      return cutting;
    },
  };
}
