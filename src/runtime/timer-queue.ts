/**
 * A binary min-heap of timers ordered by (due time, insertion sequence). The sequence makes the order of
 * simultaneous timers deterministic, which is what lets a seeded run replay exactly. Cancelled timers stay
 * in the heap and are skipped when they reach the top: cancelling is O(1) and the heap never searches.
 */
import type { Timer } from './clock.js';

/** One scheduled callback; it is also the handle returned to the caller. */
export class QueuedTimer implements Timer {
  cancelled = false;
  constructor(
    readonly dueMs: number,
    readonly seq: number,
    readonly callback: () => void,
  ) {}

  cancel(): void {
    this.cancelled = true;
  }
}

function before(a: QueuedTimer, b: QueuedTimer): boolean {
  return a.dueMs < b.dueMs || (a.dueMs === b.dueMs && a.seq < b.seq);
}

/** Min-heap of {@link QueuedTimer}s. */
export class TimerQueue {
  private readonly heap: QueuedTimer[] = [];
  private nextSeq = 0;

  /** Number of entries, cancelled ones included until they are popped. */
  get size(): number {
    return this.heap.length;
  }

  push(dueMs: number, callback: () => void): QueuedTimer {
    const timer = new QueuedTimer(dueMs, this.nextSeq++, callback);
    const heap = this.heap;
    let i = heap.length;
    heap.push(timer);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent]!;
      if (!before(timer, p)) break;
      heap[i] = p;
      i = parent;
    }
    heap[i] = timer;
    return timer;
  }

  /** The earliest live timer, dropping cancelled ones on the way; undefined when none is left. */
  peek(): QueuedTimer | undefined {
    let top = this.heap[0];
    while (top?.cancelled) {
      this.pop();
      top = this.heap[0];
    }
    return top;
  }

  /** Removes and returns the earliest entry (cancelled or not). */
  pop(): QueuedTimer | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (top === undefined || last === undefined || heap.length === 0) return top;
    const n = heap.length;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      let child = left;
      if (right < n && before(heap[right]!, heap[left]!)) child = right;
      const c = heap[child]!;
      if (!before(c, last)) break;
      heap[i] = c;
      i = child;
    }
    heap[i] = last;
    return top;
  }
}
