/**
 * The lock service that lease-majority races for, in the simulator: one lease, held by a side (the owner
 * its members name) for a time to live. It stands outside the members' network, as an etcd cluster on
 * its own network does: a cut between members does not cut them off from it, so the side that asks first
 * wins, and the minority asks only after its delay. A request reaches it half a round trip after it
 * leaves the member and the answer arrives half a round trip later, as the member's process receives any
 * message (late while it is paused, never once it crashed).
 *
 * The core asks through a `PromiseLike`, and the simulation runs to its end in one synchronous call, in
 * which no promise callback would ever run: the answer is a thenable settled on virtual time instead.
 */
import type { DowningLease } from '../downing/downing-types.js';
import type { VirtualClock } from '../runtime/virtual-clock.js';
import type { SimProcess } from './process.js';

/** A value that arrives on virtual time; `then` callbacks run when it does, synchronously. */
class VirtualAnswer<T> implements PromiseLike<T> {
  private settled = false;
  private value: T | undefined;
  private readonly waiting: Array<(value: T) => void> = [];

  resolve(value: T): void {
    if (this.settled) return;
    this.settled = true;
    this.value = value;
    for (const callback of this.waiting.splice(0)) callback(value);
  }

  // biome-ignore lint/suspicious/noThenProperty: a thenable is the point, settled on virtual time (see above)
  then<R1 = T, R2 = never>(
    onFulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
    _onRejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): PromiseLike<R1 | R2> {
    // It never rejects. What the callback returns is passed on as is: the core chains nothing.
    const next = new VirtualAnswer<R1 | R2>();
    const run = (value: T): void => {
      if (onFulfilled == null) next.resolve(value as unknown as R1);
      else next.resolve(onFulfilled(value) as R1);
    };
    if (this.settled) run(this.value as T);
    else this.waiting.push(run);
    return next;
  }
}

/** Settings of the simulated lease service. */
export interface SimLeaseSettings {
  /** How long a side holds the lease once it took it, ms. */
  readonly ttlMs: number;
  /** Round trip between a member and the service, ms. */
  readonly rttMs: number;
}

/** The one lease of a simulation, and the figures of its use. */
export class SimLeaseService {
  private owner: string | undefined;
  private expiresAtMs = 0;
  /** Requests answered, and of them those granted. */
  requests = 0;
  granted = 0;

  constructor(
    private readonly clock: VirtualClock,
    private readonly settings: SimLeaseSettings,
  ) {}

  /** The lease as member `process` reaches it. */
  leaseFor(process: SimProcess): DowningLease {
    return { acquire: (owner) => this.acquire(process, owner) };
  }

  private acquire(process: SimProcess, owner: string): PromiseLike<boolean> {
    const answer = new VirtualAnswer<boolean>();
    const half = this.settings.rttMs / 2;
    this.clock.setTimer(half, () => {
      const held = this.grant(owner);
      this.clock.setTimer(half, () => process.deliver(() => answer.resolve(held)));
    });
    return answer;
  }

  /** Grants the lease to `owner` when it is free, expired, or held by that side already. */
  private grant(owner: string): boolean {
    this.requests++;
    const now = this.clock.now();
    if (this.owner !== undefined && this.owner !== owner && now < this.expiresAtMs) return false;
    // The side that holds it keeps it for the time to live from its first request: a side's members
    // ask within a few seconds of one another, and renewing on each would let a side hold it forever.
    if (this.owner !== owner || now >= this.expiresAtMs) this.expiresAtMs = now + this.settings.ttlMs;
    this.owner = owner;
    this.granted++;
    return true;
  }
}
