/**
 * The SSE clients of the HTTP API on a fake response: a reader that stops reading is cut off once its
 * backlog passes 1 MiB, not before, and the others go on; the keep-alive stops when nobody listens.
 */
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { StreamEventJson } from '../../src/http/api-types.js';
import { EventStream } from '../../src/http/event-stream.js';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';

/** A response whose unread backlog the test sets. */
class FakeResponse extends EventEmitter {
  writableLength = 0;
  written: string[] = [];
  destroyed = false;
  ended = false;
  writeHead(): this {
    return this;
  }
  write(text: string): boolean {
    this.written.push(text);
    return true;
  }
  end(): void {
    this.ended = true;
  }
  destroy(): void {
    this.destroyed = true;
    this.emit('close');
  }
}

const EVENT: StreamEventJson = {
  kind: 'leader',
  leader: 'b',
  previous: 'a',
  epoch: 1,
  cause: 'leader-dead',
  t: 1,
};

function attach(stream: EventStream): FakeResponse {
  const res = new FakeResponse();
  stream.attach(res as unknown as ServerResponse);
  return res;
}

describe('EventStream', () => {
  it('cuts off a reader more than 1 MiB behind, not one at the bound, and keeps serving the others', () => {
    const stream = new EventStream(new VirtualClock(), 15_000);
    const slow = attach(stream);
    const fast = attach(stream);
    slow.writableLength = 1 << 20;
    stream.publish(EVENT);
    expect(slow.destroyed).toBe(false);
    expect(slow.written.at(-1)).toContain('id: 1\n');
    slow.writableLength = (1 << 20) + 1;
    stream.publish(EVENT);
    expect(slow.destroyed).toBe(true);
    expect(slow.written.filter((t) => t.startsWith('id:'))).toHaveLength(1);
    expect(stream.size).toBe(1);
    stream.publish(EVENT);
    expect(fast.written.filter((t) => t.startsWith('id:')).map((t) => t.split('\n')[0])).toEqual([
      'id: 1',
      'id: 2',
      'id: 3',
    ]);
  });

  it('pings every heartbeat while someone listens, and stops when the last one goes', () => {
    const clock = new VirtualClock();
    const stream = new EventStream(clock, 1_000);
    const res = attach(stream);
    clock.advance(999);
    expect(res.written).toEqual([': fdkit events\n\n']);
    clock.advance(1);
    clock.advance(1_000);
    expect(res.written.filter((t) => t === ': ping\n\n')).toHaveLength(2);
    res.emit('close');
    expect(stream.size).toBe(0);
    clock.advance(5_000);
    expect(clock.nextDueMs()).toBeUndefined();
  });

  it('ends every stream on close and sends nothing after', () => {
    const stream = new EventStream(new VirtualClock(), 1_000);
    const res = attach(stream);
    stream.close();
    expect(res.ended).toBe(true);
    stream.publish(EVENT);
    expect(res.written.some((t) => t.startsWith('id:'))).toBe(false);
  });
});
