/**
 * Binding UDP and TCP on one port number. With a fixed port it is one attempt. With port 0, UDP picks an
 * ephemeral port and TCP takes the same number; another process may hold that number for TCP, so the
 * pair is released and tried again with a new ephemeral port, a bounded number of times (memberlist
 * does the same in `NewNetTransport`).
 */
import { NetworkError } from '../errors.js';

/** Something bound that can be released. */
export interface Bound {
  close(): Promise<void>;
}

/** How {@link bindSamePort} binds each half. */
export interface SamePortSteps<U extends Bound & { readonly port: number }, T> {
  /** Binds UDP on the requested port (0 for ephemeral). */
  bindUdp(): Promise<U>;
  /** Binds TCP on `port`, the one UDP got; rejects with a `NetworkError` on failure. */
  listenTcp(port: number): Promise<T>;
  /** Told before each retry. */
  retrying?(port: number, attempt: number): void;
}

/**
 * Binds UDP then TCP on the same port, retrying up to `attempts` times while TCP reports
 * `FDKIT_ADDRESS_IN_USE`. Any other failure is thrown at once, with the UDP socket released.
 *
 * @param requested - the requested address, for the message when every attempt failed
 */
export async function bindSamePort<U extends Bound & { readonly port: number }, T>(
  steps: SamePortSteps<U, T>,
  attempts: number,
  requested: string,
): Promise<[U, T]> {
  for (let attempt = 1; ; attempt++) {
    const udp = await steps.bindUdp();
    try {
      return [udp, await steps.listenTcp(udp.port)];
    } catch (error) {
      await udp.close();
      const inUse = error instanceof NetworkError && error.code === 'FDKIT_ADDRESS_IN_USE';
      if (!inUse || attempts <= 1) throw error;
      if (attempt >= attempts) {
        throw new NetworkError(
          'FDKIT_ADDRESS_IN_USE',
          requested,
          `cannot bind ${requested}: ${attempts} ephemeral ports in a row were free for UDP but taken for TCP; bind an explicit port`,
          { cause: error },
        );
      }
      steps.retrying?.(udp.port, attempt);
    }
  }
}
