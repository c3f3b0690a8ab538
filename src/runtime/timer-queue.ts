/**
 * A 4-ary min-heap of timers ordered by (due time, insertion sequence). The sequence makes the order of
 * simultaneous timers deterministic, which is what lets a seeded run replay exactly. Due times and
 * sequences live in typed arrays beside the timer objects, so that sifting compares numbers in contiguous
 * memory rather than chasing a pointer per comparison: the simulator keeps hundreds of thousands of
 * timers pending. Cancelled timers stay in the heap and are skipped when they reach the top, which makes
 * cancelling O(1).
 */
import type { Timer } from './clock.js';

/** A callback of up to three arguments, stored with them so that scheduling needs no closure. */
export type TimerCallback = (a: unknown, b: unknown, c: unknown) => void;

/** One scheduled callback; it is also the handle returned to the caller. */
export class QueuedTimer implements Timer {
  cancelled = false;
  constructor(
    readonly dueMs: number,
    readonly callback: TimerCallback,
    readonly a: unknown,
    readonly b: unknown,
    readonly c: unknown,
  ) {}

  /** Runs the callback with its arguments. */
  fire(): void {
    this.callback(this.a, this.b, this.c);
  }

  cancel(): void {
    this.cancelled = true;
  }
}

export class TimerQueue {
  private timers: QueuedTimer[] = [];
  private due = new Float64Array(1024);
  private seqs = new Float64Array(1024);
  private length = 0;
  private nextSeq = 0;

  /** Number of entries, cancelled ones included until they are popped. */
  get size(): number {
    return this.length;
  }

  push(dueMs: number, callback: TimerCallback, a?: unknown, b?: unknown, c?: unknown): QueuedTimer {
    const timer = new QueuedTimer(dueMs, callback, a, b, c);
    const seq = this.nextSeq++;
    if (this.length === this.due.length) this.grow();
    const { timers, due, seqs } = this;
    let i = this.length++;
    while (i > 0) {
      const parent = (i - 1) >> 2;
      const pd = due[parent]!;
      if (pd < dueMs || (pd === dueMs && seqs[parent]! < seq)) break;
      timers[i] = timers[parent]!;
      due[i] = pd;
      seqs[i] = seqs[parent]!;
      i = parent;
    }
    timers[i] = timer;
    due[i] = dueMs;
    seqs[i] = seq;
    return timer;
  }

  /** The earliest live timer, dropping cancelled ones on the way; undefined when none is left. */
  peek(): QueuedTimer | undefined {
    while (this.length > 0) {
      const top = this.timers[0]!;
      if (!top.cancelled) return top;
      this.pop();
    }
    return undefined;
  }

  /** Removes and returns the earliest entry (cancelled or not). */
  pop(): QueuedTimer | undefined {
    if (this.length === 0) return undefined;
    const { timers, due, seqs } = this;
    const top = timers[0]!;
    const n = --this.length;
    const last = timers[n]!;
    const lastDue = due[n]!;
    const lastSeq = seqs[n]!;
    timers[n] = undefined as unknown as QueuedTimer; // release the reference for the collector
    if (n === 0) return top;
    let i = 0;
    for (;;) {
      const first = 4 * i + 1;
      if (first >= n) break;
      let child = first;
      let cd = due[first]!;
      let cs = seqs[first]!;
      const end = Math.min(first + 4, n);
      for (let c = first + 1; c < end; c++) {
        const d = due[c]!;
        if (d < cd || (d === cd && seqs[c]! < cs)) {
          child = c;
          cd = d;
          cs = seqs[c]!;
        }
      }
      if (cd > lastDue || (cd === lastDue && cs > lastSeq)) break;
      timers[i] = timers[child]!;
      due[i] = cd;
      seqs[i] = cs;
      i = child;
    }
    timers[i] = last;
    due[i] = lastDue;
    seqs[i] = lastSeq;
    return top;
  }

  private grow(): void {
    const due = new Float64Array(this.due.length * 2);
    due.set(this.due);
    const seqs = new Float64Array(this.seqs.length * 2);
    seqs.set(this.seqs);
    this.due = due;
    this.seqs = seqs;
  }
}
