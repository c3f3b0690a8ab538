/**
 * The recheck of a silent host. A suspicion that ends on the host's silence (`hostSilenceMs`) must not
 * end so for a live host whose SYNs were lost: a paused process's kernel still accepts connections, and
 * one accepted connection is enough to fall back to Lifeguard's timeout. TCP's own retransmissions (1 s,
 * then 2 s more) give a window of 1.5 s two tries at most, so under 30 % loss a live host would stay
 * silent to a quarter of its accusers. A fresh connection every sixteenth of the window, up to the last
 * step before the deadline (14, with the probe's own 15), makes that about 0.51^15 ≈ 4 · 10^−5 (a SYN and
 * its SYN-ACK each lost 30 % of the time), for 15 SYNs per accuser at most.
 */
import type { Clock } from '../runtime/clock.js';
import type { Suspicion } from './suspicion.js';

/** Steps of a host-silence window; a fresh connection is tried at each but the last two. */
export const SILENCE_RECHECKS = 16;

/** What the recheck asks of the member. */
export interface SilenceRecheckPort {
  readonly clock: Clock;
  /** Whether `suspicion` is still the one running against the suspect, and the member runs. */
  isCurrent(suspicion: Suspicion): boolean;
  /** Tries a connection to the suspect that gives up at `timeoutMs`; `onAccepted` if its host accepts. */
  tryConnect(timeoutMs: number, onAccepted: () => void): void;
}

/**
 * Tries a connection to the suspect every `silenceMs / SILENCE_RECHECKS` until `suspicion` is no longer
 * silent or its silent deadline `deadlineMs` is near; an accepted one ends the silence.
 */
export function recheckSilence(
  port: SilenceRecheckPort,
  suspicion: Suspicion,
  silenceMs: number,
  deadlineMs: number,
): void {
  const stepMs = silenceMs / SILENCE_RECHECKS;
  const heard = (): void => suspicion.hostHeard();
  const next = (): void => {
    if (!port.isCurrent(suspicion) || !suspicion.isSilent) return;
    const leftMs = deadlineMs - port.clock.now();
    if (leftMs <= stepMs) return;
    port.tryConnect(leftMs, heard);
    port.clock.setTimer(stepMs, next);
  };
  port.clock.setTimer(stepMs, next);
}
