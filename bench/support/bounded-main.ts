/**
 * The outer frame of a bench that starts processes: a hard timeout, the signals an operator sends, and a
 * failure all end in the same cleanup (the members killed, the namespaces or tables deleted), which also
 * runs when the process exits and when the run ends normally, so that nothing outlives the bench.
 */
import { progress } from './report.js';

/** How a bench is bounded and cleaned up. */
export interface BoundedMain {
  /** The bench's name in messages, `bench:peers`. */
  readonly name: string;
  /** Longest run, in seconds: then everything is cleaned up and the process exits 1. */
  readonly timeoutS: number;
  /** Ends what the bench started; must be safe to call more than once. */
  readonly cleanup: () => void;
  /** What a signal makes it do, for the message: `killing every member`. */
  readonly onSignal: string;
}

/** Runs `run` inside the frame of `bench`; a failure is reported and sets the exit code to 1. */
export async function runBounded(bench: BoundedMain, run: () => Promise<void>): Promise<void> {
  const hardTimeout = setTimeout(() => {
    progress(`hard timeout of ${bench.timeoutS} s reached: killing every member`);
    bench.cleanup();
    process.exit(1);
  }, bench.timeoutS * 1000);
  process.on('exit', bench.cleanup);
  let signalled = false;
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    // `on`, not `once`: a second signal (a wrapper such as tsx passes Ctrl-C on to its child) must not
    // kill the process with its default action while the cleanup is still running.
    process.on(signal, () => {
      if (signalled) return;
      signalled = true;
      progress(`${signal}: ${bench.onSignal}`);
      bench.cleanup();
      process.exit(130);
    });
  }
  try {
    await run();
  } catch (error) {
    progress(`${bench.name} failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  } finally {
    clearTimeout(hardTimeout);
    bench.cleanup();
  }
}
