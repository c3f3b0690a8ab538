/**
 * What `SwimNode.join()` waits for: each seed's outcome, from the transport (the request could not be
 * sent) and from the core (the seed's state came back, or its refusal), within the join timeout. The join
 * succeeds when at least one seed accepted; otherwise it fails with a {@link JoinError} that gives the
 * first refusal (a seed that refused says why, which beats "could not connect" for the operator) and every
 * seed's outcome.
 */
import { AbortError, JoinError, type JoinSeedOutcome } from '../errors.js';
import type { Clock, Timer } from '../runtime/clock.js';
import type { SeedAnswer } from '../swim/join-attempt.js';

type Outcome = { readonly accepted: true } | { readonly accepted: false; readonly failure: JoinSeedOutcome };

export class JoinWait {
  /** Settles with the number of seeds that accepted, or rejects with a {@link JoinError}. */
  readonly done: Promise<number>;
  private readonly outcomes = new Map<string, Outcome | undefined>();
  private readonly timer: Timer;
  private resolve!: (accepted: number) => void;
  private reject!: (error: JoinError) => void;
  private settled = false;

  /** `seeds`: the addresses the core sent the join to, in the order given. */
  constructor(
    seeds: readonly string[],
    clock: Clock,
    private readonly timeoutMs: number,
  ) {
    for (const seed of seeds) this.outcomes.set(seed, undefined);
    this.done = new Promise<number>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    this.timer = clock.setTimer(timeoutMs, () => this.finish());
    if (seeds.length === 0) this.finish();
  }

  /** The request to `seed` was handed to the network, or failed (`failure` says how). */
  sent(seed: string, failure: string | undefined): void {
    if (failure !== undefined) this.settle(seed, this.failure(seed, 'FDKIT_CONNECT_FAILED', failure));
  }

  /** The core heard `answer` from a seed. */
  answered(answer: SeedAnswer): void {
    const { seed, refusal } = answer;
    this.settle(
      seed,
      refusal === undefined ? { accepted: true } : this.failure(seed, refusal.code, refusal.reason),
    );
  }

  /** Stops waiting: the caller gave up. */
  cancel(): void {
    this.settled = true;
    this.timer.cancel();
  }

  private failure(seed: string, code: JoinSeedOutcome['code'], reason: string): Outcome {
    return { accepted: false, failure: { seed, code, reason } };
  }

  private settle(seed: string, outcome: Outcome): void {
    if (this.settled || !this.outcomes.has(seed) || this.outcomes.get(seed) !== undefined) return;
    this.outcomes.set(seed, outcome);
    for (const o of this.outcomes.values()) if (o === undefined) return;
    this.finish();
  }

  private finish(): void {
    if (this.settled) return;
    this.cancel();
    let accepted = 0;
    const failures: JoinSeedOutcome[] = [];
    for (const [seed, outcome] of this.outcomes) {
      if (outcome?.accepted === true) accepted++;
      else {
        failures.push(
          outcome?.failure ?? {
            seed,
            code: 'FDKIT_CONNECT_FAILED',
            reason: `no answer within the join timeout (${this.timeoutMs} ms)`,
          },
        );
      }
    }
    if (accepted > 0 || this.outcomes.size === 0) {
      this.resolve(accepted);
      return;
    }
    const main = failures.find((f) => f.code !== 'FDKIT_CONNECT_FAILED') ?? failures[0]!;
    const each = failures.map((f) => `${f.seed}: ${f.reason}`).join('; ');
    const what =
      main.code === 'FDKIT_CONNECT_FAILED'
        ? `no seed answered (${each}); check the addresses and that the seeds are running`
        : `seed ${main.seed} refused this member (${main.code}): ${main.reason}${failures.length > 1 ? ` (${each})` : ''}`;
    this.reject(new JoinError(main, failures, `join: ${what}. The member keeps retrying in the background.`));
  }
}

/** The `AbortError` of a join given up: the member keeps retrying its seeds. */
export function joinAborted(signal: AbortSignal): AbortError {
  return new AbortError(
    'join: the wait for the seeds was aborted; the member keeps retrying them',
    signal.reason,
  );
}
