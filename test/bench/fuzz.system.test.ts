/**
 * A short run of the fuzz (`bench/fuzz/`, `npm run fuzz` for the full one): 10,000 datagrams and a few
 * hundred stream connections against three live members without a keyring, and as many with a keyring
 * the fuzzer does not have. What the members must have counted is derived from what the fuzzer sent:
 * the datagrams invalid by construction (truncated, fields of the wrong type...), and under a keyring
 * every datagram but the replays of the members' own, as `not-encrypted` unless it starts like a sealed
 * message (version byte 1, at least 29 bytes: the seal's layout in docs/design.md, "Wire").
 */
// tier: system (forks the members' process, bench/fuzz/cluster-child.ts, through bench/fuzz/cluster.ts)
import { describe, expect, it } from 'vitest';
import { fuzzRun, type RunResult } from '../../bench/fuzz/run.js';
import type { StreamPlan } from '../../bench/fuzz/streams.js';

const PACKETS = 10_000;
const STREAM_TIMEOUT_MS = 1000;
const STREAMS: StreamPlan = { frames: 8, slowloris: 4, midFrame: 4, idle: 60, watches: 10, holdMs: 6000 };
const MEMBERS = 3;

function run(mode: 'plain' | 'keyring'): Promise<RunResult> {
  return fuzzRun({
    mode,
    packets: PACKETS,
    seed: 18,
    streams: STREAMS,
    streamTimeoutMs: STREAM_TIMEOUT_MS,
    window: 64,
    settleMs: 15_000,
    progressMs: 60_000,
    log: () => {},
  });
}

const total = (drops: Record<string, number>): number => Object.values(drops).reduce((a, b) => a + b, 0);

function common(r: RunResult): void {
  expect(r.packets).toBe(PACKETS);
  expect(r.exceptions).toEqual([]);
  expect(r.childExit).toBeUndefined();
  expect(r.errorLogs).toBe(0);
  expect(r.converged).toBe(true);
  // Every datagram the fuzzer sent arrived (the members' own traffic only adds to the count).
  expect(r.kernelSocketDrops).toBe(0);
  expect(r.datagramsReceived).toBeGreaterThanOrEqual(PACKETS);
  // Every connection that never completes a frame is cut by the member, at its stream timeout.
  for (const group of ['slowloris', 'mid-frame', 'idle'] as const) {
    const g = r.streams[group]!;
    expect(g.held).toBe(0);
    expect(g.reset).toBe(g.opened);
    expect(g.maxMs).toBeGreaterThanOrEqual(STREAM_TIMEOUT_MS);
  }
  expect(r.streamDrops.timeout).toBe(MEMBERS * (STREAMS.slowloris + STREAMS.midFrame + STREAMS.idle));
  expect(r.connectionsOpenAfter).toBe(r.connectionsOpenBefore);
  expect(r.rssAfterBytes - r.rssBeforeBytes).toBeLessThan(128 * 2 ** 20);
}

describe('a short fuzz of three live members', () => {
  it('without a keyring: nothing crashes, every invalid datagram is counted, the members hold each other alive', async () => {
    const r = await run('plain');
    common(r);
    const dropped = total(r.datagramDrops);
    expect(r.invalidByConstruction).toBeGreaterThan(PACKETS / 4);
    expect(dropped).toBeGreaterThanOrEqual(r.invalidByConstruction);
    expect(dropped).toBeLessThanOrEqual(PACKETS);
    // The datagrams sealed under a key no member has are told apart as such.
    expect(r.datagramDrops['unexpected-encryption']).toBeGreaterThanOrEqual(
      r.sentByKind['sealed-wrong-key']!,
    );
  }, 60_000);

  it('with a keyring the fuzzer lacks: every datagram is dropped as the seal layout says, and nothing changes', async () => {
    const r = await run('keyring');
    common(r);
    expect(r.stateChanges).toBe(0);
    expect(r.incarnationJumps).toBe(0);
    expect(r.incarnationsAfter).toEqual(r.incarnationsBefore);
    const replays = (r.sentByKind['replay-stale'] ?? 0) + (r.sentByKind['replay-duplicated'] ?? 0);
    expect(replays).toBeGreaterThan(0);
    expect(r.invalidByConstruction).toBe(PACKETS - replays);
    expect(r.datagramDrops).toEqual(r.expectedKeyringDrops);
    expect(total(r.expectedKeyringDrops)).toBe(PACKETS - replays);
    expect(r.expectedKeyringDrops['decrypt-failed']).toBeGreaterThanOrEqual(
      r.sentByKind['sealed-wrong-key']!,
    );
  }, 60_000);
});
