/**
 * Where a SWIM member is in its life. Every mechanism reads it: timers that outlive `stop()` find the
 * member stopped and do nothing, and a member that is leaving still gossips but no longer refutes.
 */

export type Phase = 'created' | 'running' | 'leaving' | 'stopped';

export class Lifecycle {
  phase: Phase = 'created';

  /** Whether the member takes part in the protocol (started and neither left nor stopped). */
  get isRunning(): boolean {
    return this.phase === 'running' || this.phase === 'leaving';
  }
}
