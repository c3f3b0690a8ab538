/**
 * An answer a bench waits for from a child process, with a deadline: a child that hangs fails the bench
 * instead of stalling it.
 */

/** A promise settled from outside, through `resolve` or `reject`. */
export interface Pending<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(error: Error): void;
}

/**
 * A pending answer that rejects with `timeoutError()` unless it is settled within `timeoutMs`; settling
 * it clears the timer, so that nothing keeps the bench's event loop alive.
 */
export function withDeadline<T>(timeoutMs: number, timeoutError: () => Error): Pending<T> {
  let settle: { resolve: (value: T) => void; reject: (error: Error) => void } | undefined;
  const promise = new Promise<T>((resolve, reject) => {
    settle = { resolve, reject };
  });
  const { resolve, reject } = settle!;
  const timer = setTimeout(() => reject(timeoutError()), timeoutMs);
  return {
    promise,
    resolve: (value) => {
      clearTimeout(timer);
      resolve(value);
    },
    reject: (error) => {
      clearTimeout(timer);
      reject(error);
    },
  };
}
