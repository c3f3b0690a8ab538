/**
 * Application broadcasts: numbered per origin, reported and passed on once, duplicates dropped among
 * the last 4,096 remembered.
 */
import { describe, expect, it } from 'vitest';
import { Broadcasts } from '../../src/swim/broadcasts.js';
import type { UserBroadcast } from '../../src/swim/messages.js';
import { Reporter } from '../../src/swim/reporter.js';
import { harness } from './swim-context.js';

function broadcasts(): { broadcasts: Broadcasts; reported: () => number[]; pending: () => number } {
  const h = harness();
  const reporter = new Reporter(
    h.ctx,
    (e) => h.events.push(e),
    () => {},
  );
  return {
    broadcasts: new Broadcasts('self', h.ctx.outbox, reporter, 1400),
    reported: () => h.events.flatMap((e) => (e.type === 'message' ? [e.payload[0]!] : [])),
    pending: () => h.ctx.outbox.pending,
  };
}

const from = (origin: string, seq: number): UserBroadcast => ({
  kind: 'user',
  origin,
  seq,
  payload: new Uint8Array([seq % 256]),
});

describe('Broadcasts', () => {
  it('numbers its own broadcasts 0, 1, 2 … as they are spread; one that does not fit takes no number', () => {
    const { broadcasts: b, pending, reported } = broadcasts();
    b.spread('test', new Uint8Array([1]));
    b.spread('test', new Uint8Array([2]));
    expect(() => b.spread('test', new Uint8Array(1400))).toThrow(
      /test: broadcast payload of 1400 bytes does not fit packetBytesMax \(1400\)/,
    );
    b.spread('test', new Uint8Array([3]));
    expect(pending()).toBe(3);
    // Its own numbers are remembered, so they come back as duplicates; the next one is new.
    for (const seq of [0, 1, 2]) b.receive(from('self', seq));
    expect(reported()).toEqual([]);
    b.receive(from('self', 3));
    expect(reported()).toEqual([3]);
  });

  it('reports and passes on a broadcast once; forgets the oldest past 4,096 remembered', () => {
    const { broadcasts: b, reported } = broadcasts();
    for (let seq = 0; seq < 4096; seq++) b.receive(from('o', seq));
    b.receive(from('o', 0)); // a duplicate: dropped
    expect(reported()).toHaveLength(4096);
    b.receive(from('o', 4096)); // the 4,097th: seq 0 is forgotten
    b.receive(from('o', 1)); // still remembered: dropped
    expect(reported()).toHaveLength(4097);
    b.receive(from('o', 0)); // forgotten: reported again
    expect(reported()).toHaveLength(4098);
    expect(reported().at(-1)).toBe(0);
  });
});
