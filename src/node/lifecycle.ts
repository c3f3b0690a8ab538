/**
 * The options of `start()` and `shutdown()` that the SWIM node and the heartbeat monitor share, and the
 * one wait of shutdown that a signal may cut short.
 */

/** Options of `start()` of a `SwimNode` or a `HeartbeatMonitor`. */
export interface StartOptions {
  /**
   * Gives up starting: an aborted signal rejects `start()` with an `AbortError` (`FDKIT_ABORTED`,
   * the signal's reason as its `cause`), and whatever the start had bound is closed again. A member whose
   * start was aborted cannot be started again; create another.
   */
  readonly signal?: AbortSignal;
}

/** Options of `shutdown()` of a `SwimNode` or a `HeartbeatMonitor`. */
export interface ShutdownOptions {
  /**
   * Stops waiting for the transport to finish closing: once it aborts, `shutdown()` resolves. The
   * protocol has stopped and the close has begun either way; nothing of the member runs on.
   */
  readonly signal?: AbortSignal;
}

/** `done`, or an earlier resolution once `signal` aborts: for waits that may be given up, not failed. */
export function untilAborted(done: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return done;
  if (signal.aborted) {
    // The caller gave up waiting: a failure to close can no longer be reported to it.
    done.catch(() => undefined);
    return Promise.resolve();
  }
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => resolve();
    signal.addEventListener('abort', onAbort, { once: true });
    done.then(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
