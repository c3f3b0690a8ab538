/**
 * Racing a promise against an `AbortSignal`, for `{ signal }` options: the caller stops waiting, while the
 * work itself may still finish in the background.
 */

/**
 * `promise`, or a rejection with the signal's reason once it aborts. `promise` stays observed either way,
 * so a failure after the abort is not reported as an unhandled rejection; whoever started it cleans up.
 */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
