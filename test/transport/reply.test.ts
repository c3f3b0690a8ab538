/**
 * The reply frame of a stream (`MessageHandler`'s `reply`, `Transport.exchange`), on the UDP/TCP
 * transport over 127.0.0.1 and on the in-memory one: a handler's reply comes back to the sender's
 * `exchange` on the same connection; without one, `exchange` resolves undefined as soon as `sendStream`
 * would; a reply too big, or queued after the handler returned, is not written.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { REPLY_BYTES_MAX, type Transport } from '../../src/transport/transport.js';
import { MemoryHarness, NetHarness, type TransportHarness } from './transport-harness.js';

const harnesses: Array<[string, () => TransportHarness]> = [
  ['UDP/TCP on 127.0.0.1', () => new NetHarness('127.0.0.1')],
  ['memory', () => new MemoryHarness()],
  ['memory with 3 ms latency', () => new MemoryHarness(3)],
];

for (const [name, make] of harnesses) {
  describe(`stream replies: ${name}`, () => {
    let h: TransportHarness;
    afterEach(async () => {
      await h.cleanup();
    });

    async function pair(): Promise<[Transport, Transport]> {
      h = make();
      return [await h.create({}), await h.create({})];
    }

    it('the receiver replies on the connection; exchange resolves with the reply, sendStream with nothing', async () => {
      const [a, b] = await pair();
      const seen: number[] = [];
      b.onStream((bytes, _from, reply) => {
        seen.push(bytes[0]!);
        reply?.(Uint8Array.of(0xee, bytes[0]!));
        reply?.(Uint8Array.of(0xff)); // only the first reply is written
      });
      const reply = await a.exchange!(b.localAddress, Uint8Array.of(7, 7, 7));
      expect(reply === undefined ? undefined : [...reply]).toEqual([0xee, 7]);
      expect(await a.sendStream(b.localAddress, Uint8Array.of(8))).toBeUndefined();
      expect(seen).toEqual([7, 8]);
      expect(a.counters().streamsOut).toBe(2);
    });

    it('without a reply, exchange resolves undefined; a reply above REPLY_BYTES_MAX or a late one is not written', async () => {
      const [a, b] = await pair();
      let late: ((frame: Uint8Array) => void) | undefined;
      b.onStream((bytes, _from, reply) => {
        if (bytes[0] === 2) reply?.(new Uint8Array(REPLY_BYTES_MAX + 1));
        if (bytes[0] === 3) late = reply;
      });
      expect(await a.exchange!(b.localAddress, Uint8Array.of(1))).toBeUndefined();
      expect(await a.exchange!(b.localAddress, Uint8Array.of(2))).toBeUndefined();
      expect(await a.exchange!(b.localAddress, Uint8Array.of(3))).toBeUndefined();
      late?.(Uint8Array.of(1));
      // The largest reply allowed does come back.
      b.onStream((_bytes, _from, reply) => reply?.(new Uint8Array(REPLY_BYTES_MAX).fill(9)));
      expect((await a.exchange!(b.localAddress, Uint8Array.of(4)))?.length).toBe(REPLY_BYTES_MAX);
    });
  });
}
