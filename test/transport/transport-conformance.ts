/**
 * The transport conformance suite: the behaviour every `Transport` must have, registered as vitest tests
 * against a harness (see `transport-harness.ts`). `test/transport/conformance.test.ts` runs it for the
 * real UDP/TCP transport and for the in-memory one, so that code tested on memory behaves the same on
 * sockets.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidArgumentError, InvalidOptionError, LifecycleError, NetworkError } from '../../src/errors.js';
import { parseAddress } from '../../src/transport/address.js';
import { encodeFrame, frameHeader } from '../../src/transport/frame.js';
import type { Transport, TransportCounters } from '../../src/transport/transport.js';
import type { RawStream, TransportHarness } from './transport-harness.js';

/** Bytes 0..n-1 of a recognisable pattern, so that a reordered or shifted payload fails the comparison. */
function pattern(length: number, seed = 7): Uint8Array {
  const bytes = new Uint8Array(length);
  let x = seed;
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    bytes[i] = x >>> 24;
  }
  return bytes;
}

function id(n: number): Uint8Array {
  return new Uint8Array([n >> 8, n & 0xff]);
}

/** Expects `promise` to reject with a NetworkError of `code`; returns it for further checks. */
async function rejectsWith(promise: Promise<unknown>, code: string): Promise<NetworkError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(NetworkError);
  expect((error as NetworkError).code).toBe(code);
  return error as NetworkError;
}

interface Received {
  bytes: Uint8Array;
  from: string;
}

function collect(transport: Transport, kind: 'datagram' | 'stream'): Received[] {
  const received: Received[] = [];
  const handler = (bytes: Uint8Array, from: string): void => {
    received.push({ bytes, from });
  };
  if (kind === 'datagram') transport.onDatagram(handler);
  else transport.onStream(handler);
  return received;
}

/**
 * How early, by the harness's clock, a transport timer may fire. None on the virtual clock; on the system
 * clock, Node arms a timer on libuv's loop time, which can lag performance.now() by the work already done
 * in the current turn of the loop.
 */
const TIMER_EARLY_MS = 5;

/** How `raw` ended, and when, in ms after `sinceMs` by the harness's clock. */
function endedAfter(
  raw: RawStream,
  sinceMs: number,
  h: TransportHarness,
): Promise<{ outcome: 'ended' | 'reset'; afterMs: number }> {
  return raw.outcome.then((outcome) => ({ outcome, afterMs: h.now() - sinceMs }));
}

function dropsTotal(counters: TransportCounters): number {
  return Object.values(counters.drops).reduce((a, b) => a + b, 0);
}

/** Registers the conformance tests for the implementation that `makeHarness` builds (one per test). */
export function describeTransportConformance(name: string, makeHarness: () => TransportHarness): void {
  describe(`Transport conformance: ${name}`, () => {
    let h: TransportHarness;
    beforeEach(() => {
      h = makeHarness();
    });
    afterEach(async () => {
      await h.cleanup();
    });

    describe('datagrams', () => {
      it('delivers a datagram with the bytes sent and the sender bound address, both ways', async () => {
        const a = await h.create({});
        const b = await h.create({});
        const atA = collect(a, 'datagram');
        const atB = collect(b, 'datagram');
        a.sendDatagram(b.localAddress, new Uint8Array([1, 2, 3]));
        await h.waitFor(() => atB.length === 1, 'the datagram at b');
        expect([...(atB[0]?.bytes ?? [])]).toEqual([1, 2, 3]);
        expect(atB[0]?.from).toBe(a.localAddress);
        b.sendDatagram(atB[0]?.from ?? '', new Uint8Array([4]));
        await h.waitFor(() => atA.length === 1, 'the reply at a');
        expect([...(atA[0]?.bytes ?? [])]).toEqual([4]);
        expect(atA[0]?.from).toBe(b.localAddress);
      });

      it('delivers 200 datagrams, each once, and counts them on both sides', async () => {
        const a = await h.create({});
        const b = await h.create({});
        const atB = collect(b, 'datagram');
        // Batches, each awaited, keep loopback's socket buffer from overflowing (UDP may drop then).
        for (let batch = 0; batch < 10; batch++) {
          for (let i = 0; i < 20; i++) a.sendDatagram(b.localAddress, id(batch * 20 + i));
          await h.waitFor(() => atB.length === (batch + 1) * 20, `batch ${batch}`);
        }
        const ids = atB.map((r) => ((r.bytes[0] ?? 0) << 8) | (r.bytes[1] ?? 0));
        expect(new Set(ids).size).toBe(200);
        expect(Math.min(...ids)).toBe(0);
        expect(Math.max(...ids)).toBe(199);
        expect(atB.every((r) => r.from === a.localAddress)).toBe(true);
        await h.waitFor(() => a.counters().datagramsOut === 200, 'datagramsOut at a');
        expect(a.counters().datagramBytesOut).toBe(400);
        expect(b.counters()).toMatchObject({ datagramsIn: 200, datagramBytesIn: 400 });
      });

      it('counts a datagram above the UDP limit as a send error, without throwing, and keeps sending', async () => {
        const errors: NetworkError[] = [];
        const a = await h.create({ onSendError: (e) => errors.push(e) });
        const b = await h.create({});
        const atB = collect(b, 'datagram');
        expect(() => a.sendDatagram(b.localAddress, new Uint8Array(70_000))).not.toThrow();
        a.sendDatagram(b.localAddress, new Uint8Array([9]));
        await h.waitFor(() => atB.length === 1 && errors.length === 1, 'the small datagram and the error');
        expect(errors[0]?.code).toBe('FDKIT_SEND_FAILED');
        expect(a.counters()).toMatchObject({ datagramSendErrors: 1, datagramsOut: 1, datagramBytesOut: 1 });
        expect(atB[0]?.bytes.length).toBe(1);
      });

      it('counts a datagram to a malformed address as a send error, without throwing', async () => {
        const errors: NetworkError[] = [];
        const a = await h.create({ onSendError: (e) => errors.push(e) });
        for (const bad of ['no-port', '127.0.0.1:0', '127.0.0.1:65536', '::1:7946', '']) {
          expect(() => a.sendDatagram(bad, new Uint8Array([1]))).not.toThrow();
        }
        await h.waitFor(() => errors.length === 5, 'five send errors');
        expect(errors.map((e) => e.code)).toEqual(Array(5).fill('FDKIT_BAD_ADDRESS'));
        expect(a.counters()).toMatchObject({ datagramSendErrors: 5, datagramsOut: 0 });
      });

      it('drops a datagram that arrives before any handler, counting it', async () => {
        const a = await h.create({});
        const b = await h.create({});
        a.sendDatagram(b.localAddress, new Uint8Array([1]));
        await h.waitFor(() => b.counters().drops['no-handler'] === 1, 'the no-handler drop');
        expect(b.counters().datagramsIn).toBe(0);
      });

      it('survives a throwing handler, counting it, and the next handler replaces it', async () => {
        const a = await h.create({});
        const b = await h.create({});
        b.onDatagram(() => {
          throw new Error('handler bug');
        });
        a.sendDatagram(b.localAddress, new Uint8Array([1]));
        await h.waitFor(() => b.counters().drops['handler-error'] === 1, 'the handler-error drop');
        const atB = collect(b, 'datagram');
        a.sendDatagram(b.localAddress, new Uint8Array([2]));
        await h.waitFor(() => atB.length === 1, 'delivery to the new handler');
        expect(b.counters().drops['handler-error']).toBe(1);
      });
    });

    describe('streams', () => {
      it('delivers a small and a 1 MiB message intact before sendStream resolves', async () => {
        const a = await h.create({});
        const b = await h.create({});
        const atB = collect(b, 'stream');
        const small = pattern(100, 1);
        const large = pattern(1024 * 1024, 2);
        await a.sendStream(b.localAddress, small);
        expect(atB).toHaveLength(1);
        await a.sendStream(b.localAddress, large);
        expect(atB).toHaveLength(2);
        expect(Buffer.from(atB[0]?.bytes ?? []).equals(Buffer.from(small))).toBe(true);
        expect(Buffer.from(atB[1]?.bytes ?? []).equals(Buffer.from(large))).toBe(true);
        // The source of a stream is the connection's end: the sender's host, any port.
        const from = parseAddress(atB[0]?.from ?? '');
        expect(from.host).toBe(parseAddress(a.localAddress).host);
        expect(from.port).toBeGreaterThan(0);
      });

      it('rejects an empty message (an empty frame asks for a watch), and delivers several concurrent ones', async () => {
        const a = await h.create({});
        const b = await h.create({});
        const atB = collect(b, 'stream');
        const error = await a.sendStream(b.localAddress, new Uint8Array(0)).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(InvalidArgumentError);
        expect(a.counters().streamSendErrors).toBe(1);
        await Promise.all([1, 2, 3, 4, 5].map((n) => a.sendStream(b.localAddress, pattern(1000 * n, n))));
        expect(atB.map((r) => r.bytes.length).sort((x, y) => x - y)).toEqual([1000, 2000, 3000, 4000, 5000]);
      });

      it('rejects with FDKIT_CONNECT_FAILED when nobody listens at the address', async () => {
        const a = await h.create({});
        const address = await h.unusedAddress();
        const error = await rejectsWith(a.sendStream(address, new Uint8Array([1])), 'FDKIT_CONNECT_FAILED');
        expect(error.address).toBe(address);
        expect(a.counters()).toMatchObject({ streamSendErrors: 1, streamsOut: 0 });
      });

      it('rejects a malformed destination with FDKIT_BAD_ADDRESS, as a rejection', async () => {
        const a = await h.create({});
        let sent: Promise<void> | undefined;
        expect(() => {
          sent = a.sendStream('not an address', new Uint8Array([1]));
        }).not.toThrow();
        await rejectsWith(sent ?? Promise.resolve(), 'FDKIT_BAD_ADDRESS');
      });

      it('drops a frame above streamBytesMax unread, fails the sender, and takes the next one', async () => {
        const a = await h.create({});
        const b = await h.create({ streamBytesMax: 1024 });
        const atB = collect(b, 'stream');
        await rejectsWith(a.sendStream(b.localAddress, pattern(1025)), 'FDKIT_STREAM_FAILED');
        await h.waitFor(() => b.counters().drops['too-large'] === 1, 'the too-large drop');
        expect(atB).toHaveLength(0);
        await a.sendStream(b.localAddress, pattern(1024));
        expect(atB).toHaveLength(1);
        expect(b.counters()).toMatchObject({ streamsIn: 1, streamBytesIn: 1024 });
        expect(a.counters()).toMatchObject({ streamsOut: 1, streamSendErrors: 1 });
      });

      it('rejects a huge announced length from the header alone, without waiting for the payload', async () => {
        const b = await h.create({});
        const atB = collect(b, 'stream');
        const raw = await h.connectRaw(b.localAddress);
        raw.write(frameHeader(0xffff_ffff));
        expect(await raw.outcome).toBe('reset');
        expect(b.counters().drops['too-large']).toBe(1);
        expect(atB).toHaveLength(0);
      });

      it('drops a frame whose connection ends inside the payload or the header', async () => {
        const b = await h.create({});
        const atB = collect(b, 'stream');
        const inPayload = await h.connectRaw(b.localAddress);
        inPayload.write(frameHeader(100));
        inPayload.write(pattern(10));
        inPayload.end();
        expect(await inPayload.outcome).toBe('reset');
        const inHeader = await h.connectRaw(b.localAddress);
        inHeader.write(new Uint8Array([0, 0]));
        inHeader.end();
        expect(await inHeader.outcome).toBe('reset');
        expect(b.counters().drops.truncated).toBe(2);
        expect(atB).toHaveLength(0);
      });

      it('drops a frame whose connection is reset mid-frame, and keeps serving', async () => {
        const a = await h.create({});
        const b = await h.create({});
        const atB = collect(b, 'stream');
        const raw = await h.connectRaw(b.localAddress);
        raw.write(frameHeader(100));
        raw.write(pattern(10));
        await h.waitFor(() => b.counters().connectionsIn === 1, 'the raw connection accepted');
        raw.reset();
        await h.waitFor(() => b.counters().drops.truncated === 1, 'the truncated drop');
        await a.sendStream(b.localAddress, pattern(10));
        expect(atB).toHaveLength(1);
      });

      it('reads several frames from one connection, across arbitrary chunk boundaries, and confirms', async () => {
        const b = await h.create({});
        const atB = collect(b, 'stream');
        const bytes = new Uint8Array([...encodeFrame(pattern(300, 3)), ...encodeFrame(pattern(5, 4))]);
        const raw = await h.connectRaw(b.localAddress);
        for (const [from, to] of [
          [0, 1],
          [1, 6],
          [6, 304],
          [304, 306],
          [306, bytes.length],
        ] as const) {
          raw.write(bytes.subarray(from, to));
        }
        raw.end();
        expect(await raw.outcome).toBe('ended');
        expect(atB.map((r) => r.bytes.length)).toEqual([300, 5]);
        expect(Buffer.from(atB[0]?.bytes ?? []).equals(Buffer.from(pattern(300, 3)))).toBe(true);
      });

      it('is not crashed by garbage on the stream port, and keeps serving', async () => {
        const a = await h.create({});
        const b = await h.create({});
        const datagrams = collect(b, 'datagram');
        const streams = collect(b, 'stream');
        const raw = await h.connectRaw(b.localAddress);
        raw.write(new TextEncoder().encode('GET / HTTP/1.1\r\nHost: fdkit\r\n\r\n'));
        // 'GET ' read as a length is about 1.2 GB: above the 32 MiB default.
        expect(await raw.outcome).toBe('reset');
        expect(b.counters().drops['too-large']).toBe(1);
        a.sendDatagram(b.localAddress, new Uint8Array([1]));
        await a.sendStream(b.localAddress, new Uint8Array([2]));
        await h.waitFor(() => datagrams.length === 1, 'the datagram after the garbage');
        expect(streams).toHaveLength(1);
      });

      it('holds a watch open past streamTimeoutMs, delivering nothing, and reports closed when the watched transport closes', async () => {
        const a = await h.create({});
        const b = await h.create({ streamTimeoutMs: 150 });
        const received = collect(b, 'stream');
        const ends: string[] = [];
        a.watch?.(b.localAddress, (reason) => ends.push(reason));
        await h.waitFor(() => b.counters().connectionsOpen === 1, 'the watch accepted');
        await h.elapse(600);
        expect(ends).toEqual([]);
        expect(b.counters().connectionsOpen).toBe(1);
        expect(received).toEqual([]);
        expect(dropsTotal(b.counters())).toBe(0);
        await b.close();
        await h.waitFor(() => ends.length === 1, 'the end of the watch');
        await h.elapse(50);
        expect(ends).toEqual(['closed']);
      });

      it('reports a watch on an address nobody listens at as refused, and a malformed one as failed', async () => {
        const a = await h.create({});
        const ends: string[] = [];
        a.watch?.(await h.unusedAddress(), (reason) => ends.push(`unused:${reason}`));
        a.watch?.('not an address', (reason) => ends.push(`malformed:${reason}`));
        await h.waitFor(() => ends.length === 2, 'both ends');
        expect(ends.sort()).toEqual(['malformed:failed', 'unused:refused']);
      });

      it('cancel() and close() end a watch without reporting it, and release the connection', async () => {
        const a = await h.create({});
        const b = await h.create({});
        const ends: string[] = [];
        const first = a.watch?.(b.localAddress, (reason) => ends.push(`first:${reason}`));
        a.watch?.(b.localAddress, (reason) => ends.push(`second:${reason}`));
        await h.waitFor(() => b.counters().connectionsOpen === 2, 'both watches accepted');
        first?.cancel();
        first?.cancel();
        await h.waitFor(() => b.counters().connectionsOpen === 1, 'the cancelled watch released');
        await a.close();
        await h.waitFor(() => b.counters().connectionsOpen === 0, 'the other released on close');
        await h.elapse(50);
        expect(ends).toEqual([]);
      });

      it('takes at most half of maxInboundStreams as watches; the one over the limit is closed', async () => {
        const a = await h.create({});
        const b = await h.create({ maxInboundStreams: 4 });
        const ends: string[] = [];
        for (let i = 0; i < 3; i++) a.watch?.(b.localAddress, (reason) => ends.push(reason));
        await h.waitFor(() => ends.length === 1, 'the third watch turned away');
        expect(ends).toEqual(['closed']);
        expect(b.counters().drops['connection-limit']).toBe(1);
        expect(b.counters().connectionsOpen).toBe(2);
        // Streams still get through.
        const received = collect(b, 'stream');
        await a.sendStream(b.localAddress, new Uint8Array([9]));
        expect(received).toHaveLength(1);
      });

      it('resets a connection that completes no frame within streamTimeoutMs', async () => {
        const b = await h.create({ streamTimeoutMs: 150 });
        // Before the connections open: b starts each one's timeout when it accepts it, later.
        const openedAt = h.now();
        const silent = await h.connectRaw(b.localAddress);
        const partial = await h.connectRaw(b.localAddress);
        const silentEnd = endedAfter(silent, openedAt, h);
        const partialEnd = endedAfter(partial, openedAt, h);
        partial.write(new Uint8Array([0, 0, 0, 10, 1]));
        expect((await silentEnd).outcome).toBe('reset');
        expect((await partialEnd).outcome).toBe('reset');
        // Not before its time: neither connection was cut off before the 150 ms that it had.
        expect((await silentEnd).afterMs).toBeGreaterThanOrEqual(150 - TIMER_EARLY_MS);
        expect((await partialEnd).afterMs).toBeGreaterThanOrEqual(150 - TIMER_EARLY_MS);
        expect(b.counters().drops.timeout).toBe(2);
        await h.waitFor(() => b.counters().connectionsOpen === 0, 'both connections released');
      });

      it('cuts off a peer that keeps trickling bytes: the timeout is per frame, not per silence', async () => {
        const b = await h.create({ streamTimeoutMs: 200 });
        const openedAt = h.now();
        const raw = await h.connectRaw(b.localAddress);
        raw.write(frameHeader(1000));
        const end = endedAfter(raw, openedAt, h);
        let outcome: 'ended' | 'reset' | undefined;
        void raw.outcome.then((o) => {
          outcome = o;
        });
        let trickled = 0;
        // One byte every 50 ms: never silent for long, and far from finishing 1000 bytes.
        while (outcome === undefined && trickled < 40) {
          raw.write(new Uint8Array([trickled]));
          trickled++;
          await h.elapse(50);
        }
        expect(outcome).toBe('reset');
        expect(trickled).toBeLessThan(40);
        // The frame's 200 ms, counted from the connection's start, ran out; the trickle did not cut it.
        expect((await end).afterMs).toBeGreaterThanOrEqual(200 - TIMER_EARLY_MS);
        expect(b.counters().drops.timeout).toBe(1);
      });

      it('resets connections beyond maxInboundStreams, counting them, and accepts again once one closes', async () => {
        const a = await h.create({});
        const b = await h.create({ maxInboundStreams: 1 });
        const atB = collect(b, 'stream');
        const holder = await h.connectRaw(b.localAddress);
        await h.waitFor(() => b.counters().connectionsOpen === 1, 'the holder accepted');
        await rejectsWith(a.sendStream(b.localAddress, new Uint8Array([1])), 'FDKIT_STREAM_FAILED');
        expect(b.counters().drops['connection-limit']).toBe(1);
        holder.end();
        expect(await holder.outcome).toBe('ended');
        await h.waitFor(() => b.counters().connectionsOpen === 0, 'the holder released');
        await a.sendStream(b.localAddress, new Uint8Array([2]));
        expect(atB.map((r) => r.bytes[0])).toEqual([2]);
        expect(b.counters().connectionsIn).toBe(2);
      });

      it('confirms a frame whose handler throws, counting the error', async () => {
        const a = await h.create({});
        const b = await h.create({});
        b.onStream(() => {
          throw new Error('handler bug');
        });
        await a.sendStream(b.localAddress, new Uint8Array([1]));
        expect(b.counters().drops['handler-error']).toBe(1);
        expect(b.counters().streamsIn).toBe(1);
      });
    });

    describe('binding and lifecycle', () => {
      it('advertises the bound address, or the advertise option (port 0 meaning the bound port)', async () => {
        const plain = await h.create({});
        const bound = parseAddress(plain.localAddress);
        expect(bound.host).toBe(h.host);
        expect(bound.port).toBeGreaterThan(0);
        const natted = await h.create({ advertise: '203.0.113.9:0' });
        expect(natted.localAddress).toMatch(/^203\.0\.113\.9:[1-9]\d*$/);
        const fixed = await h.create({ advertise: '[2001:DB8::1]:7946' });
        expect(fixed.localAddress).toBe('[2001:db8::1]:7946');
      });

      it('close() is idempotent, releases the address, and ends sending', async () => {
        const a = await h.create({});
        const address = a.localAddress;
        const first = a.close();
        const second = a.close();
        await Promise.all([first, second]);
        await a.close();
        const again = await h.create({ bind: address });
        expect(again.localAddress).toBe(address);
        const error = await a.sendStream(again.localAddress, new Uint8Array([1])).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(LifecycleError);
        expect((error as LifecycleError).code).toBe('FDKIT_STOPPED');
        expect(() => a.sendDatagram(again.localAddress, new Uint8Array([1]))).not.toThrow();
        expect(a.counters().datagramSendErrors).toBe(1);
      });

      it('close() resets open inbound connections and nobody is reachable at the address after', async () => {
        const a = await h.create({});
        const b = await h.create({});
        const address = b.localAddress;
        const raw = await h.connectRaw(address);
        raw.write(frameHeader(10));
        await h.waitFor(() => b.counters().connectionsOpen === 1, 'the raw connection accepted');
        await b.close();
        expect(await raw.outcome).toBe('reset');
        await rejectsWith(a.sendStream(address, new Uint8Array([1])), 'FDKIT_CONNECT_FAILED');
      });

      it('rejects a bind on an address in use with FDKIT_ADDRESS_IN_USE, naming it and suggesting port 0', async () => {
        const a = await h.create({});
        const error = await rejectsWith(h.create({ bind: a.localAddress }), 'FDKIT_ADDRESS_IN_USE');
        expect(error.message).toContain(a.localAddress);
        expect(error.message).toContain('port 0');
        expect(error.address).toBe(a.localAddress);
      });

      it('rejects malformed bind and advertise addresses with FDKIT_BAD_ADDRESS, never throwing synchronously', async () => {
        const bad = [
          'localhost',
          `${h.host}:70000`,
          `${h.host}:-1`,
          `${h.host}:07946`,
          'not a host:7946',
          '300.1.1.1:7946',
          '::1:7946',
          '[::1]',
          ':7946',
        ];
        for (const bind of bad) {
          let created: Promise<Transport> | undefined;
          expect(() => {
            created = h.create({ bind });
          }).not.toThrow();
          const error = await rejectsWith(created ?? Promise.resolve(), 'FDKIT_BAD_ADDRESS');
          expect(error.message).toContain(JSON.stringify(bind));
        }
        await rejectsWith(h.create({ advertise: 'nowhere' }), 'FDKIT_BAD_ADDRESS');
      });

      it('rejects options out of range or unknown with an InvalidOptionError', async () => {
        for (const options of [{ streamBytesMax: 0 }, { maxInboundStreams: 1.5 }, { streamTimeoutMs: -1 }]) {
          await expect(h.create(options)).rejects.toBeInstanceOf(InvalidOptionError);
        }
        await expect(h.create({ streamBytesMaxx: 1 } as never)).rejects.toMatchObject({
          code: 'FDKIT_UNKNOWN_OPTION',
        });
      });

      it('counts traffic exactly, and counters() is a snapshot', async () => {
        const a = await h.create({});
        const b = await h.create({});
        collect(b, 'datagram');
        collect(b, 'stream');
        for (const n of [1, 2, 3]) a.sendDatagram(b.localAddress, new Uint8Array(n));
        await a.sendStream(b.localAddress, new Uint8Array(10));
        await a.sendStream(b.localAddress, new Uint8Array(20));
        await h.waitFor(() => b.counters().datagramsIn === 3, 'three datagrams in');
        await h.waitFor(() => b.counters().connectionsOpen === 0, 'connections released');
        const snapshot = a.counters();
        expect(snapshot).toMatchObject({
          datagramsOut: 3,
          datagramBytesOut: 6,
          datagramSendErrors: 0,
          streamsOut: 2,
          streamBytesOut: 30,
          streamSendErrors: 0,
          datagramsIn: 0,
          streamsIn: 0,
        });
        expect(b.counters()).toMatchObject({
          datagramsIn: 3,
          datagramBytesIn: 6,
          connectionsIn: 2,
          connectionsOpen: 0,
          streamsIn: 2,
          streamBytesIn: 30,
          datagramsOut: 0,
          streamsOut: 0,
        });
        expect(dropsTotal(a.counters()) + dropsTotal(b.counters())).toBe(0);
        snapshot.datagramsOut = 99;
        snapshot.drops.timeout = 99;
        expect(a.counters().datagramsOut).toBe(3);
        expect(a.counters().drops.timeout).toBe(0);
        expect(JSON.parse(JSON.stringify(a.counters()))).toEqual(a.counters());
      });
    });
  });
}
