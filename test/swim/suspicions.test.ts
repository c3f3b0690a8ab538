import { describe, expect, it } from 'vitest';
import { SUSPECT } from '../../src/membership/member-state.js';
import type { DeadUpdate } from '../../src/swim/messages.js';
import { Reporter } from '../../src/swim/reporter.js';
import { SelfState } from '../../src/swim/self.js';
import { Suspicions } from '../../src/swim/suspicions.js';
import { suspicionMinMs } from '../../src/swim/timing.js';
import { harness, run } from './swim-context.js';

function suspicions(h: ReturnType<typeof harness>, answers = false) {
  const dead: Array<{ d: DeadUpdate; atMs: number }> = [];
  const pinged: number[] = [];
  const self = new SelfState(h.ctx, 1, new Uint8Array(0));
  const reporter = new Reporter(
    h.ctx,
    (e) => h.events.push(e),
    () => {},
  );
  const s = new Suspicions(h.ctx, self, reporter, {
    declareDead: (d) => dead.push({ d, atMs: h.clock.now() }),
    pingOnce: (id, timeoutMs, done) => {
      pinged.push(id);
      h.clock.setTimer(timeoutMs, () => done(answers));
    },
  });
  return { s, dead, pinged };
}

describe('Suspicions, over a fake port', () => {
  it('without confirmations, a suspicion runs to its maximum timeout, then the last word, then death', () => {
    const h = harness();
    for (const n of ['b', 'c', 'd', 'e', 'f']) h.know(n);
    const { s, dead, pinged } = suspicions(h);
    s.suspect({ kind: 'suspect', name: 'b', incarnation: 1, from: 'c' });
    const { config } = h.ctx;
    const minMs = suspicionMinMs(config, h.ctx.view.clusterSize);
    const maxMs = config.suspicionMaxTimeoutMult * minMs;
    expect(maxMs).toBeGreaterThan(minMs);
    run(h.clock, maxMs - 1);
    expect(pinged).toEqual([]);
    expect(dead).toEqual([]);
    run(h.clock, 1);
    expect(pinged).toEqual([h.id('b')]);
    run(h.clock, config.probeTimeoutMs);
    expect(dead.map(({ d, atMs }) => [d.name, d.from, atMs])).toEqual([
      ['b', 'self', maxMs + config.probeTimeoutMs],
    ]);
  });

  it('a suspect that answers its last word is not declared dead', () => {
    const h = harness();
    for (const n of ['b', 'c', 'd', 'e', 'f']) h.know(n);
    const { s, dead } = suspicions(h, true);
    s.suspect({ kind: 'suspect', name: 'b', incarnation: 1, from: 'c' });
    run(h.clock, 600_000);
    expect(dead).toEqual([]);
    expect(h.ctx.counters.lastWordsAnswered).toBe(1);
    expect(h.ctx.view.table.stateOf(h.id('b'))).toBe(SUSPECT);
  });

  it('a witness keeps its own refusal queued beside another witness’s refusal of the same member', () => {
    const h = harness();
    for (const n of ['n3', 'n5']) h.know(n);
    const { s } = suspicions(h);
    s.witnessRefused(h.id('n5'));
    s.suspect({ kind: 'suspect', name: 'n5', incarnation: 1, from: 'n3', refused: true });
    h.ctx.outbox.sendPacket('anywhere', { type: 'gossip', from: 'self', updates: [] });
    const sent = h.packets.at(-1)!.packet.updates.flatMap((u) => (u.kind === 'suspect' ? [u.from] : []));
    expect(sent.sort()).toEqual(['n3', 'self']);
  });
});
