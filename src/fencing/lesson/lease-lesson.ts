/**
 * The lease lesson as a pure function: client A holds a lease, reads an invoice, pauses for `pauseMs`,
 * and writes its charge when it wakes; the lock service gives the lease to B once the term has run out,
 * and B reads and charges too. Runs the real `FencingGuard` and `LeaseStateTracker` on a `VirtualClock`,
 * with an in-memory lock service and storage, so a page can show the sequence without etcd. It lives
 * beside the fencing code, not the CLI, because it does no I/O: a page's server needs only to call it.
 */
import { EventEmitter } from 'node:events';
import { checkKnownKeys, checkNumber } from '../../options.js';
import { VirtualClock } from '../../runtime/virtual-clock.js';
import { FencingGuard } from '../fencing-guard.js';
import type { LeaseEventMap } from '../lease-state.js';
import { LeaseStateTracker } from '../lease-state.js';
import { checkTimings, grantedTimings } from '../lease-timings.js';

/** Inputs of {@link runLeaseLesson}. */
export interface LeaseLessonInput {
  /** How long A is paused between its read and its write, in ms. */
  readonly pauseMs: number;
  /** The lease term (TTL), in ms. */
  readonly termMs: number;
  /** Whether the storage checks fencing tokens (B claims its token as soon as it holds the lease). */
  readonly fencing: boolean;
}

/** One step of the timeline. */
export interface LessonStep {
  readonly t: number;
  readonly actor: 'A' | 'B' | 'lock' | 'storage';
  readonly action: string;
  /** The fencing token involved, as a decimal string. */
  readonly token?: string;
  readonly outcome?: 'accepted' | 'refused';
}

/** The outcome of {@link runLeaseLesson}. */
export interface LeaseLessonResult {
  readonly steps: readonly LessonStep[];
  readonly charges: number;
  readonly doubleCharge: boolean;
}

/**
 * The inputs {@link runLeaseLesson} accepts, in ms: a page's server checks its query against these, so
 * that it can refuse a value in the words of its own parameters rather than this function's options.
 */
export const LESSON_LIMITS = {
  pauseMs: { min: 0, max: 600_000, integer: true },
  termMs: { min: 100, max: 600_000, integer: true },
} as const;

/** After acquiring, B reads this much later, and writes this much after its read. */
const B_READ_DELAY_MS = 10;
const B_WORK_MS = 20;
const OWNER = 'runLeaseLesson';
const INVOICE = 'invoice-42';

/** Runs the scenario; deterministic, no I/O. */
export function runLeaseLesson(input: LeaseLessonInput): LeaseLessonResult {
  checkKnownKeys(OWNER, input, ['pauseMs', 'termMs', 'fencing']);
  const pauseMs = checkNumber(OWNER, 'pauseMs', input.pauseMs, LESSON_LIMITS.pauseMs);
  const termMs = checkNumber(OWNER, 'termMs', input.termMs, LESSON_LIMITS.termMs);
  const clock = new VirtualClock({ startMs: 0 });
  const guard = new FencingGuard();
  const steps: LessonStep[] = [];
  let charges = 0;
  const log = (step: Omit<LessonStep, 't'>): void => {
    steps.push({ t: clock.now(), ...step });
  };
  const silent: Pick<EventEmitter<LeaseEventMap>, 'emit'> = new EventEmitter<LeaseEventMap>();
  const timings = grantedTimings(checkTimings(OWNER, { ttlMs: termMs }), termMs);
  let nextToken = 1n;
  // A is granted at 0; both ways to B (the term running out, A's release) check that A still holds it.
  let holder: 'A' | 'B' = 'A';
  const write = (actor: 'A' | 'B', token: bigint): void => {
    const accepted = !input.fencing || guard.check(INVOICE, token).accepted;
    if (accepted) charges++;
    log({
      actor: 'storage',
      action: `${actor}'s charge`,
      token: `${token}`,
      outcome: accepted ? 'accepted' : 'refused',
    });
  };
  const grantB = (): void => {
    holder = 'B';
    const token = nextToken++;
    log({ actor: 'lock', action: 'grants the lease to B', token: `${token}` });
    const lease = new LeaseStateTracker(clock, 'billing', clock.now(), timings, silent);
    if (input.fencing) {
      const claimed = guard.check(INVOICE, token).accepted;
      log({
        actor: 'storage',
        action: 'B claims its token',
        token: `${token}`,
        outcome: claimed ? 'accepted' : 'refused',
      });
    }
    clock.setTimer(B_READ_DELAY_MS, () => {
      const charged = charges > 0;
      log({
        actor: 'B',
        action: charged ? 'reads: already charged' : 'reads: not charged',
        token: `${token}`,
      });
      if (charged) return;
      clock.setTimer(B_WORK_MS, () => {
        lease.throwUnlessHeld();
        log({ actor: 'B', action: 'writes the charge', token: `${token}` });
        write('B', token);
      });
    });
  };
  // The service frees the lease at the term, scheduled before A's wake-up so that it wins a tie.
  const tokenA = nextToken++;
  log({ actor: 'lock', action: 'grants the lease to A', token: `${tokenA}` });
  const leaseA = new LeaseStateTracker(clock, 'billing', 0, timings, silent);
  clock.setTimer(termMs, () => {
    if (holder !== 'A') return;
    log({ actor: 'lock', action: "A's lease expires" });
    grantB();
  });
  leaseA.throwUnlessHeld();
  log({ actor: 'A', action: 'reads: not charged; GC pause begins', token: `${tokenA}` });
  clock.setTimer(pauseMs, () => {
    log({ actor: 'A', action: `wakes; its own lease reads ${leaseA.state}`, token: `${tokenA}` });
    log({ actor: 'A', action: 'writes the charge', token: `${tokenA}` });
    write('A', tokenA);
    if (holder === 'A') {
      log({ actor: 'lock', action: 'A releases the lease' });
      grantB();
    }
  });
  clock.advanceTo(pauseMs + termMs + 1000);
  return { steps, charges, doubleCharge: charges > 1 };
}
