/**
 * Warnings for the drops an operator must hear of: bytes that failed to open (another key, another
 * label, plaintext to a member that encrypts, sealed bytes to one that does not) are a misconfigured
 * peer, not noise. Each reason is logged at warn at most once an interval, the next line telling how many
 * were left out meanwhile, so that a peer retrying its join every second cannot flood the log.
 */
import type { Clock } from '../runtime/clock.js';
import type { Logger } from '../runtime/logger.js';
import type { DropReason } from '../wire/drop-reason.js';

/** One line per reason per this many ms at most. */
export const DROP_WARNING_INTERVAL_MS = 10_000;

/** The drops that mean a peer is misconfigured, with what to tell the operator. */
const WARNED: Partial<Record<DropReason, string>> = {
  'decrypt-failed': 'dropped a message no installed key could open (another key or another cluster label)',
  'not-encrypted': 'dropped a plaintext message: this member requires encryption',
  'unexpected-encryption': 'dropped an encrypted message: this member has no keyring',
};

export class DropWarnings {
  private readonly last = new Map<DropReason, { atMs: number; suppressed: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  /** Whether `reason` is one this warns about; if so, warns (or counts the line left out). */
  warn(reason: DropReason, fields: Record<string, unknown>): boolean {
    const text = WARNED[reason];
    if (text === undefined) return false;
    const now = this.clock.now();
    const entry = this.last.get(reason);
    if (entry !== undefined && now - entry.atMs < DROP_WARNING_INTERVAL_MS) {
      entry.suppressed++;
      return true;
    }
    const suppressed = entry?.suppressed ?? 0;
    this.last.set(reason, { atMs: now, suppressed: 0 });
    this.log.warn({ ...fields, reason, ...(suppressed > 0 ? { suppressed } : {}) }, text);
    return true;
  }
}
