/**
 * Events as an `AsyncIterable` (the status streams of nats.js): a consumer that reads with `for await`
 * gets every event in order, and a consumer that falls behind loses the oldest ones, counted, rather
 * than growing the member's memory without bound.
 */

/** Options of an event stream. */
export interface EventStreamOptions {
  /** Ends the stream when aborted: the loop reading it finishes normally. */
  readonly signal?: AbortSignal;
  /** Events kept for a slow reader; older ones are dropped beyond it. Default 1024. */
  readonly bufferSize?: number;
}

export class EventStream<T> implements AsyncIterableIterator<T> {
  private readonly buffer: T[] = [];
  private waiting: ((result: IteratorResult<T>) => void) | undefined;
  private ended = false;
  /** Events dropped because the reader fell behind by more than the buffer. */
  dropped = 0;

  constructor(
    private readonly bufferSize: number,
    private readonly onEnd: (stream: EventStream<T>) => void,
    signal?: AbortSignal,
  ) {
    if (signal?.aborted) this.end();
    else signal?.addEventListener('abort', () => this.end(), { once: true });
  }

  /** Hands an event to the reader, or buffers it. */
  push(event: T): void {
    if (this.ended) return;
    const waiting = this.waiting;
    if (waiting !== undefined) {
      this.waiting = undefined;
      waiting({ value: event, done: false });
      return;
    }
    if (this.buffer.length >= this.bufferSize) {
      this.buffer.shift();
      this.dropped++;
    }
    this.buffer.push(event);
  }

  /** Ends the stream: the reader gets what is buffered, then `done`. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.onEnd(this);
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.({ value: undefined, done: true });
  }

  next(): Promise<IteratorResult<T>> {
    const event = this.buffer.shift();
    if (event !== undefined) return Promise.resolve({ value: event, done: false });
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  return(): Promise<IteratorResult<T>> {
    this.buffer.length = 0;
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }
}
