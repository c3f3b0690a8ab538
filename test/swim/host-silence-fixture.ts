/**
 * The context of `swim-context.ts` with a kernel whose answers the test scripts attempt by attempt: a
 * connection can be accepted or refused after a delay, or get no answer at all, as from a host that is
 * down (the attempt then ends `timeout` when the time it was given runs out). Every attempt is recorded
 * with the time it was made and the time it was given, which is what the silence rule is about.
 */
import type { ConnectOutcome } from '../../src/membership/connection.js';
import type { SwimConfig } from '../../src/swim/config.js';
import type { SwimEnvironment } from '../../src/swim/environment.js';
import { Outbox } from '../../src/swim/outbox.js';
import { type Harness, harness } from './swim-context.js';

/** How the kernel answers one attempt: an outcome some milliseconds later, or nothing (a host down). */
export type Reply = { readonly outcome: ConnectOutcome; readonly afterMs: number } | 'silent';

export const ACCEPTED: Reply = { outcome: 'accepted', afterMs: 1 };
export const REFUSED: Reply = { outcome: 'refused', afterMs: 1 };

/** One connection attempt the member made. */
export interface Attempt {
  readonly to: string;
  readonly atMs: number;
  readonly timeoutMs: number;
}

export interface SilenceHarness {
  /** The harness, its context's outbox over the scripted kernel. */
  readonly h: Harness;
  readonly attempts: Attempt[];
  /** How the kernel answers attempt number `index` (from 0) to `to`; silent unless the test says otherwise. */
  reply: (to: string, index: number) => Reply;
}

/** A harness on `config` (memberlist-lan's values where it says nothing) with a scripted kernel. */
export function silenceHarness(config: Partial<SwimConfig> = {}): SilenceHarness {
  const base = harness({ config });
  const { clock } = base;
  const attempts: Attempt[] = [];
  const env: SwimEnvironment = {
    clock,
    random: base.ctx.random,
    sendPacket: (to, packet) => base.packets.push({ to, packet }),
    sendStream: (to, message) => base.streams.push({ to, message }),
    emit: (event) => base.events.push(event),
    probeConnect: (to, timeoutMs, done) => {
      const reply = f.reply(to, attempts.length);
      attempts.push({ to, atMs: clock.now(), timeoutMs });
      base.connects.push(to);
      if (reply === 'silent') clock.setTimer(timeoutMs, () => done('timeout'));
      else clock.setTimer(reply.afterMs, () => done(reply.outcome));
    },
  };
  const outbox = new Outbox(base.ctx.config, env, base.ctx.view, base.ctx.counters, () => h.wakes++);
  const h: Harness = { ...base, ctx: { ...base.ctx, outbox } };
  const f: SilenceHarness = { h, attempts, reply: () => 'silent' };
  return f;
}
