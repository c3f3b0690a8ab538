import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';
import { encodeFrame, FrameReader, frameHeader } from '../../src/transport/frame.js';
import { InboundStream } from '../../src/transport/inbound-stream.js';

/** Cuts `bytes` at the given offsets (sorted, deduplicated, clamped). */
function cut(bytes: Uint8Array, offsets: number[]): Uint8Array[] {
  const points = [...new Set(offsets.map((o) => Math.min(o, bytes.length)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const to of [...points, bytes.length]) {
    chunks.push(bytes.subarray(from, to));
    from = to;
  }
  return chunks;
}

function concat(parts: Uint8Array[]): Uint8Array {
  return new Uint8Array(parts.flatMap((p) => [...p]));
}

describe('frame encoding', () => {
  it('writes a 4-byte big-endian length before the payload', () => {
    expect([...frameHeader(0x01020304)]).toEqual([1, 2, 3, 4]);
    expect([...encodeFrame(new Uint8Array([9, 8]))]).toEqual([0, 0, 0, 2, 9, 8]);
    expect([...frameHeader(0xffff_ffff)]).toEqual([255, 255, 255, 255]);
  });
});

describe('FrameReader', () => {
  it('reassembles any sequence of frames however the stream is cut', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 6 }),
        fc.array(fc.nat({ max: 2000 }), { maxLength: 30 }),
        (payloads, offsets) => {
          const reader = new FrameReader(300);
          const out: Uint8Array[] = [];
          for (const chunk of cut(concat(payloads.map(encodeFrame)), offsets)) {
            const result = reader.push(chunk);
            expect(result.tooLarge).toBe(false);
            out.push(...result.frames);
          }
          expect(out.map((f) => [...f])).toEqual(payloads.map((p) => [...p]));
          expect(reader.atBoundary).toBe(true);
          expect(reader.pendingBytes).toBe(0);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('is not at a boundary inside a header or a payload, and counts what is pending', () => {
    const reader = new FrameReader(100);
    reader.push(new Uint8Array([0, 0]));
    expect(reader.atBoundary).toBe(false);
    expect(reader.pendingBytes).toBe(2);
    reader.push(new Uint8Array([0, 3, 7]));
    expect(reader.atBoundary).toBe(false);
    expect(reader.pendingBytes).toBe(5);
    expect(reader.push(new Uint8Array([8, 9, 0])).frames.map((f) => [...f])).toEqual([[7, 8, 9]]);
    expect(reader.atBoundary).toBe(false);
    expect(reader.pendingBytes).toBe(1);
  });

  it('accepts a frame of exactly the limit and refuses one byte more from the header alone', () => {
    expect(new FrameReader(10).push(encodeFrame(new Uint8Array(10))).frames).toHaveLength(1);
    const reader = new FrameReader(10);
    const result = reader.push(new Uint8Array([1, 2, 3, ...frameHeader(11)]).subarray(3));
    expect(result).toEqual({ frames: [], tooLarge: true });
    expect(reader.push(new Uint8Array([1])).tooLarge).toBe(true);
    expect(reader.atBoundary).toBe(false);
  });

  it('delivers the frames before an oversize header in the same chunk', () => {
    const reader = new FrameReader(10);
    const result = reader.push(concat([encodeFrame(new Uint8Array([5])), frameHeader(1_000_000)]));
    expect(result.tooLarge).toBe(true);
    expect(result.frames.map((f) => [...f])).toEqual([[5]]);
  });

  it('does not keep a reference to the chunks it was given', () => {
    const reader = new FrameReader(10);
    const chunk = encodeFrame(new Uint8Array([1, 2]));
    const [frame] = reader.push(chunk).frames;
    chunk.fill(0);
    expect([...(frame ?? [])]).toEqual([1, 2]);
  });
});

describe('InboundStream', () => {
  function session(timeoutMs = 100, bytesMax = 50, watchAllowed = true) {
    const clock = new VirtualClock();
    const log: string[] = [];
    const stream: InboundStream = new InboundStream(
      { end: () => log.push('end'), reset: () => log.push('reset') },
      {
        clock,
        streamTimeoutMs: timeoutMs,
        streamBytesMax: bytesMax,
        deliver: (frame) => log.push(`frame:${frame.length}`),
        drop: (reason, pending) => log.push(`drop:${reason}:${pending}`),
        finished: () => log.push(stream.isWatch ? 'finished watch' : 'finished'),
        watch: () => {
          log.push(watchAllowed ? 'watch' : 'watch refused');
          return watchAllowed;
        },
      },
    );
    return { clock, log, stream };
  }

  it('takes an empty frame as a watch: never delivered, held open past the timeout, ended like any stream', () => {
    const { clock, log, stream } = session(100);
    stream.data(frameHeader(0));
    expect(log).toEqual(['watch']);
    expect(stream.isWatch).toBe(true);
    expect(clock.nextDueMs()).toBeUndefined();
    clock.advance(60_000);
    expect(log).toEqual(['watch']);
    // Frames after it are delivered as usual; more empty ones ask nothing more.
    stream.data(encodeFrame(new Uint8Array(2)));
    stream.data(frameHeader(0));
    stream.end();
    expect(log).toEqual(['watch', 'frame:2', 'finished watch', 'end']);
  });

  it('resets a watch the transport has no room for, and a broken watch loses nothing', () => {
    const refused = session(100, 50, false);
    refused.stream.data(frameHeader(0));
    expect(refused.log).toEqual(['watch refused', 'finished', 'reset']);
    expect(refused.clock.nextDueMs()).toBeUndefined();
    const broken = session();
    broken.stream.data(frameHeader(0));
    broken.stream.broken();
    expect(broken.log).toEqual(['watch', 'finished watch']);
  });

  it('confirms with an orderly end after frames end at a boundary', () => {
    const { log, stream } = session();
    stream.data(encodeFrame(new Uint8Array(3)));
    stream.end();
    expect(log).toEqual(['frame:3', 'finished', 'end']);
    expect(stream.done).toBe(true);
  });

  it('gives each frame the full timeout, counted from the previous frame', () => {
    const { clock, log, stream } = session(100);
    clock.advance(90);
    stream.data(encodeFrame(new Uint8Array(1)));
    clock.advance(90);
    stream.data(frameHeader(5));
    expect(log).toEqual(['frame:1']);
    clock.advance(10);
    expect(log).toEqual(['frame:1', 'finished', 'reset', 'drop:timeout:4']);
  });

  it('resets quietly an idle connection that lost nothing', () => {
    const { clock, log, stream } = session(100);
    stream.data(encodeFrame(new Uint8Array(1)));
    clock.advance(100);
    expect(log).toEqual(['frame:1', 'finished', 'reset']);
  });

  it('counts a silent connection as a timeout', () => {
    const { clock, log } = session(100);
    clock.advance(99);
    expect(log).toEqual([]);
    clock.advance(1);
    expect(log).toEqual(['finished', 'reset', 'drop:timeout:0']);
  });

  it('drops a truncated frame on end or on a broken connection, and ignores everything after', () => {
    const a = session();
    a.stream.data(new Uint8Array([0, 0, 0, 9, 1]));
    a.stream.end();
    a.stream.data(new Uint8Array([1]));
    a.stream.broken();
    expect(a.log).toEqual(['finished', 'reset', 'drop:truncated:5']);
    const b = session();
    b.stream.data(new Uint8Array([0, 0]));
    b.stream.broken();
    expect(b.log).toEqual(['finished', 'drop:truncated:2']);
    const c = session();
    c.stream.broken();
    expect(c.log).toEqual(['finished']);
  });

  it('resets on an oversize header and on abort, without timers left behind', () => {
    const a = session(100, 50);
    a.stream.data(frameHeader(51));
    expect(a.log).toEqual(['finished', 'reset', 'drop:too-large:4']);
    expect(a.clock.nextDueMs()).toBeUndefined();
    const b = session();
    b.stream.abort();
    b.stream.abort();
    expect(b.log).toEqual(['finished', 'reset']);
    expect(b.clock.nextDueMs()).toBeUndefined();
  });
});
