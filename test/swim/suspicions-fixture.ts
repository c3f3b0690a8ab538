/**
 * A Suspicions mechanism over a fake port, on the virtual-clock context of `swim-context.ts`: what it
 * declared dead and when, the last-word pings it asked for, and the updates it queued for gossip.
 */

import { isMemberEvent } from '../../src/swim/events.js';
import type { DeadUpdate, Update } from '../../src/swim/messages.js';
import { Reporter } from '../../src/swim/reporter.js';
import { SelfState } from '../../src/swim/self.js';
import { Suspicions } from '../../src/swim/suspicions.js';
import { type Harness, type HarnessOptions, harness } from './swim-context.js';

/** A view of this member and `b`…`f` (n = 6: the timeouts of a view of up to 9, with k = 2). */
export function six(options: HarnessOptions = {}): Harness {
  const h = harness(options);
  for (const n of ['b', 'c', 'd', 'e', 'f']) h.know(n);
  return h;
}

/** A last-word ping the suspicions asked the port for. */
export interface LastWordPing {
  readonly id: number;
  readonly timeoutMs: number;
  readonly accuse: boolean;
  readonly atMs: number;
}

export interface SuspicionsUnderTest {
  readonly s: Suspicions;
  readonly self: SelfState;
  readonly dead: Array<{ d: DeadUpdate; atMs: number }>;
  readonly pings: LastWordPing[];
  /** The members the rules would say came back from the dead lately (empty unless a test adds some). */
  readonly cameBack: Set<number>;
}

/** The mechanism of `h`; a last-word ping is answered (`answers`) or not when its timeout runs out. */
export function suspicions(h: Harness, answers = false): SuspicionsUnderTest {
  const dead: SuspicionsUnderTest['dead'] = [];
  const pings: LastWordPing[] = [];
  const cameBack = new Set<number>();
  const reporter = new Reporter(
    h.ctx,
    (e) => h.events.push(e),
    () => {},
  );
  const self = new SelfState(h.ctx, reporter, 1, new Uint8Array(0));
  const s = new Suspicions(h.ctx, self, reporter, {
    declareDead: (d) => dead.push({ d, atMs: h.clock.now() }),
    cameBackRecently: (id) => cameBack.has(id),
    pingOnce: (id, timeoutMs, done, accuse) => {
      pings.push({ id, timeoutMs, accuse, atMs: h.clock.now() });
      h.clock.setTimer(timeoutMs, () => done(answers));
    },
  });
  return { s, self, dead, pings, cameBack };
}

/** The updates waiting in the outbox of `h`, as the next packet carries them. */
export function queued(h: Harness): readonly Update[] {
  h.ctx.outbox.sendPacket('anywhere', { type: 'gossip', from: h.ctx.name, updates: [] });
  return h.packets.at(-1)!.packet.updates;
}

/** The member events of `h`, as [type, member, cause, accuser]. */
export function memberEvents(h: Harness): Array<[string, string, string, string | undefined]> {
  return h.events.flatMap((e) => (!isMemberEvent(e) ? [] : [[e.type, e.member, e.cause, e.accuser]]));
}
