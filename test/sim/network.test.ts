/**
 * The simulator's network model (`SimNetwork`): loss, bursts, delay and partitions, seeded.
 */
import { describe, expect, it } from 'vitest';
import { Random } from '../../src/runtime/random.js';
import { lanNetwork, type NetworkModel, SimNetwork } from '../../src/sim/network.js';

function network(model: Partial<NetworkModel>, endpoints: number, seed = 1): SimNetwork {
  return new SimNetwork({ ...lanNetwork, ...model }, endpoints, new Random(seed));
}

/** Whether each of `count` packets from `from` to `to` was lost. */
function lossPattern(net: SimNetwork, count: number, from = 0, to = 1): boolean[] {
  return Array.from({ length: count }, () => net.packetDelay(from, to) < 0);
}

/** Mean length of the runs of consecutive losses. */
function meanLossRun(lost: readonly boolean[]): number {
  let runs = 0;
  let total = 0;
  let current = 0;
  for (const l of [...lost, false]) {
    if (l) {
      current++;
      continue;
    }
    if (current > 0) {
      runs++;
      total += current;
    }
    current = 0;
  }
  return runs === 0 ? 0 : total / runs;
}

describe('SimNetwork', () => {
  it.each([0.01, 0.1, 0.5])('loses a fraction %f of packets within binomial bounds', (loss) => {
    const n = 20_000;
    const net = network({ loss }, 2, 42);
    const lost = lossPattern(net, n).filter(Boolean).length;
    const sd = Math.sqrt(n * loss * (1 - loss));
    expect(Math.abs(lost - n * loss)).toBeLessThan(5 * sd);
  });

  it('loses nothing at loss 0 and everything at loss 1', () => {
    expect(lossPattern(network({ loss: 0 }, 2), 5000).some(Boolean)).toBe(false);
    expect(lossPattern(network({ loss: 1 }, 2), 5000).every(Boolean)).toBe(true);
  });

  it('bursty (Gilbert-Elliott) loss has longer loss runs than independent loss at the same rate', () => {
    const n = 50_000;
    const bursty = lossPattern(network({ burstEnter: 0.02, burstExit: 0.2, burstLoss: 1 }, 2, 7), n);
    const rate = bursty.filter(Boolean).length / n;
    // Stationary share of the bursty state: enter / (enter + exit) = 1/11.
    expect(rate).toBeGreaterThan(0.07);
    expect(rate).toBeLessThan(0.115);
    const independent = lossPattern(network({ loss: rate }, 2, 7), n);
    const independentRate = independent.filter(Boolean).length / n;
    expect(Math.abs(independentRate - rate)).toBeLessThan(0.01);
    const burstyRun = meanLossRun(bursty);
    const independentRun = meanLossRun(independent);
    // Independent runs average 1 / (1 − p) ≈ 1.1; bursts last 1 / exit = 5 packets on average.
    expect(independentRun).toBeLessThan(1.2);
    expect(burstyRun).toBeGreaterThan(4);
    expect(burstyRun).toBeGreaterThan(3 * independentRun);
  });

  it('never delivers faster than baseDelayMs, and jitter averages jitterMs', () => {
    const model = { baseDelayMs: 2, linkSpreadMs: 3, jitterMs: 0.5 };
    const net = network(model, 10, 11);
    const fixed = network({ ...model, jitterMs: 0 }, 10, 11);
    let jitterSum = 0;
    let count = 0;
    for (let a = 0; a < 10; a++) {
      for (let b = 0; b < 10; b++) {
        if (a === b) continue;
        const link = fixed.streamDelay(a, b);
        for (let k = 0; k < 50; k++) {
          const packet = net.packetDelay(a, b);
          const stream = net.streamDelay(a, b);
          expect(packet).toBeGreaterThanOrEqual(model.baseDelayMs);
          expect(stream).toBeGreaterThanOrEqual(model.baseDelayMs);
          expect(packet).toBeGreaterThanOrEqual(link);
          jitterSum += packet - link + (stream - link);
          count += 2;
        }
      }
    }
    expect(jitterSum / count).toBeGreaterThan(0.45);
    expect(jitterSum / count).toBeLessThan(0.55);
  });

  it('gives each link a fixed extra delay in [0, linkSpreadMs), the same both ways', () => {
    const model = { baseDelayMs: 1, linkSpreadMs: 4, jitterMs: 0 };
    const net = network(model, 20);
    const extras = new Set<number>();
    for (let a = 0; a < 20; a++) {
      for (let b = a + 1; b < 20; b++) {
        const there = net.packetDelay(a, b);
        expect(net.packetDelay(a, b)).toBe(there);
        expect(net.streamDelay(a, b)).toBe(there);
        expect(net.packetDelay(b, a)).toBe(there);
        expect(net.streamDelay(b, a)).toBe(there);
        expect(there).toBeGreaterThanOrEqual(model.baseDelayMs);
        expect(there).toBeLessThan(model.baseDelayMs + model.linkSpreadMs);
        extras.add(there);
      }
    }
    // Links differ: 190 links should not share a handful of values.
    expect(extras.size).toBeGreaterThan(150);
    // The extra depends on the endpoints only, not on the generator or its history.
    const other = network(model, 20, 999);
    for (let k = 0; k < 100; k++) other.packetDelay(k % 20, (k * 7 + 1) % 20);
    expect(other.packetDelay(3, 17)).toBe(net.packetDelay(17, 3));
  });

  it('a stream crosses the lossy link as TCP would: three legs, lost segments resent after 1 s (handshake) or 200 ms (data)', () => {
    // No jitter and one fixed delay per link, so that every leg takes exactly `delay`.
    const model = { baseDelayMs: 2, linkSpreadMs: 0, jitterMs: 0 };
    const clean = network({ ...model, loss: 0 }, 2);
    expect(clean.streamTransferDelay(0, 1, 10_000)).toBe(6);
    expect(clean.handshakeDelay(0, 1, 10_000)).toBe(4);
    expect(network({ ...model, loss: 1 }, 2).streamTransferDelay(0, 1, 10_000)).toBe(-1);
    const cut = network({ ...model, loss: 0 }, 2);
    cut.partition((i) => i, [[0, 1]]);
    expect(cut.streamTransferDelay(0, 1, 10_000)).toBe(-1);
    // One-way: the SYN gets through but its answer never comes back.
    const oneWay = network({ ...model, loss: 0 }, 2);
    oneWay.partition((i) => i, [[1, 0]]);
    expect(oneWay.handshakeDelay(0, 1, 10_000)).toBe(-1);
    // At 20% loss each delay is 6 ms plus a sum of retransmission timeouts, and the shares match TCP's:
    // all three legs through at once (0.8^3), or the handshake through and the data resent once.
    const lossy = network({ ...model, loss: 0.2 }, 2, 5);
    const runs = 20_000;
    let direct = 0;
    let dataResentOnce = 0;
    let givenUp = 0;
    for (let k = 0; k < runs; k++) {
      const delay = lossy.streamTransferDelay(0, 1, 10_000);
      if (delay < 0) {
        givenUp++;
        continue;
      }
      const waited = delay - 6;
      // Retransmission waits are sums of 1000·2^i and 200·2^j: whole multiples of 200 ms.
      expect(waited % 200).toBe(0);
      if (waited === 0) direct++;
      if (waited === 200) dataResentOnce++;
    }
    expect(direct / runs).toBeCloseTo(0.8 ** 3, 1);
    expect(dataResentOnce / runs).toBeCloseTo(0.8 ** 3 * 0.2, 1);
    expect(givenUp / runs).toBeLessThan(0.01);
  });

  const side = new Set([1, 3]);
  const groupOf = (i: number): number => (side.has(i) ? 1 : 0);
  const pairs: Array<[number, number]> = [];
  for (let a = 0; a < 6; a++) for (let b = 0; b < 6; b++) if (a !== b) pairs.push([a, b]);

  /** Checks `reachable` for every pair against `expected`, and that packetDelay agrees with it. */
  function expectReach(net: SimNetwork, expected: (a: number, b: number) => boolean): void {
    for (const [a, b] of pairs) {
      expect({ a, b, reachable: net.reachable(a, b) }).toEqual({ a, b, reachable: expected(a, b) });
      expect({ a, b, lost: net.packetDelay(a, b) === -1 }).toEqual({ a, b, lost: !expected(a, b) });
    }
  }

  it('a partition in both directions blocks both ways across the cut and nothing inside a side', () => {
    const net = network({}, 6);
    net.partition(groupOf, [
      [1, 0],
      [0, 1],
    ]);
    expectReach(net, (a, b) => side.has(a) === side.has(b));
  });

  it('a one-way partition blocks only side → rest', () => {
    const net = network({}, 6);
    net.partition(groupOf, [[1, 0]]);
    expectReach(net, (a, b) => !(side.has(a) && !side.has(b)));
  });

  it('heal restores every link', () => {
    const net = network({}, 6);
    net.partition(groupOf, [
      [1, 0],
      [0, 1],
    ]);
    net.heal();
    expectReach(net, () => true);
    net.partition(groupOf, [[1, 0]]);
    net.heal();
    expectReach(net, () => true);
  });

  it('packetDelay is -1 exactly where reachable is false (loss 0, one-way rest → side)', () => {
    const net = network({ loss: 0 }, 6, 5);
    net.partition(groupOf, [[0, 1]]);
    for (const [a, b] of pairs) expect(net.packetDelay(a, b) === -1).toBe(!net.reachable(a, b));
  });
});
