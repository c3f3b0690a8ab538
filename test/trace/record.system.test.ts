/**
 * Recording traces: the sans-I/O recorder fed by hand (peers, lives, stragglers), then `recordTraces` and
 * `fdkit record` over real UDP on 127.0.0.1 with ephemeral ports, recording a heartbeat monitor that beats
 * every 50 ms for about a second. Nothing waits on the wall clock but the recordings' own bounded
 * durations.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Heartbeat } from '../../src/heartbeat/messages.js';
import { createHeartbeatMonitor, type HeartbeatMonitor } from '../../src/node/heartbeat-monitor.js';
import { recordTraces } from '../../src/node/trace-recording.js';
import { qosMetrics } from '../../src/qos/metrics.js';
import { TraceRecorder } from '../../src/trace/recorder.js';
import { replayTrace } from '../../src/trace/replay.js';
import { formatTrace, parseTrace } from '../../src/trace/trace-format.js';
import { createDetector } from '../../src/tune/detector-config.js';
import { distPath } from '../support/fresh-dist.js';

const BIN = distPath('cli/main.js');

function beat(seq: number, overrides: Partial<Heartbeat> = {}): Heartbeat {
  return { from: 'n2', address: '10.0.0.6:7947', incarnation: 100, nonce: 7, seq, ...overrides };
}

describe('TraceRecorder', () => {
  const options = {
    peers: ['10.0.0.6:7947', '10.0.0.7:7947'],
    intervalMs: 1000,
    startMs: 5000,
    startedAtUnixMs: 1_790_000_000_000,
    recorder: '10.0.0.5:7947',
  };

  it('records each peer apart, in ms from the start, by the address announced or sent from', () => {
    const recorder = new TraceRecorder(options);
    expect(recorder.record(5100.5, '10.0.0.6:7947', beat(0))).toBe(true);
    // Announces another address, sends from the second peer's: found by the address it sent from.
    expect(recorder.record(5200, '10.0.0.7:7947', beat(3, { from: 'n3', address: '192.168.1.7:7947' }))).toBe(
      true,
    );
    expect(recorder.record(6100, '10.0.0.6:7947', beat(1))).toBe(true);
    expect(recorder.record(6150, '10.0.0.6:7947', beat(1))).toBe(true); // a duplicate is an arrival too
    expect(recorder.record(6200, '10.0.0.9:7947', beat(0, { from: 'n9', address: '10.0.0.9:7947' }))).toBe(
      false,
    );
    const [n2, n3] = recorder.traces(15_000);
    expect(n2!.header).toEqual({
      format: 'fdkit-trace',
      version: 1,
      source: 'recorded',
      intervalMs: 1000,
      durationMs: 10_000,
      recording: {
        peer: '10.0.0.6:7947',
        peerName: 'n2',
        recorder: '10.0.0.5:7947',
        startedAtUnixMs: 1_790_000_000_000,
      },
    });
    expect(n2!.arrivals).toEqual([
      { t: 100.5, seq: 0 },
      { t: 1100, seq: 1 },
      { t: 1150, seq: 1 },
    ]);
    expect(n3!.arrivals).toEqual([{ t: 200, seq: 3 }]);
    expect(recorder.status().map((s) => [s.name, s.heartbeats, s.lives])).toEqual([
      ['n2', 3, 1],
      ['n3', 1, 1],
    ]);
  });

  it("starts a new life at a restart and leaves out the old life's stragglers", () => {
    const recorder = new TraceRecorder(options);
    recorder.record(6000, '10.0.0.6:7947', beat(40));
    recorder.record(7000, '10.0.0.6:7947', beat(0, { incarnation: 101, nonce: 9 }));
    expect(recorder.record(7100, '10.0.0.6:7947', beat(41))).toBe(false); // the old life, late
    expect(recorder.record(7200, '10.0.0.6:7947', beat(5, { incarnation: 99, nonce: 3 }))).toBe(false);
    recorder.record(8000, '10.0.0.6:7947', beat(1, { incarnation: 101, nonce: 9 }));
    const [trace] = recorder.traces(9000);
    expect(trace!.arrivals).toEqual([
      { t: 1000, seq: 40 },
      { t: 2000, seq: 0, life: 1 },
      { t: 3000, seq: 1, life: 1 },
    ]);
    expect(() => parseTrace(formatTrace(trace!))).not.toThrow();
  });

  it('writes an empty trace for a peer never heard from', () => {
    const [trace] = new TraceRecorder(options).traces(65_000);
    expect(trace!.arrivals).toEqual([]);
    expect(trace!.header.durationMs).toBe(60_000);
    expect(trace!.header.recording?.peerName).toBeUndefined();
  });
});

describe('recording over UDP on 127.0.0.1', () => {
  const senders: HeartbeatMonitor[] = [];
  afterEach(async () => {
    await Promise.all(senders.splice(0).map((s) => s.shutdown()));
  });

  async function sender(): Promise<HeartbeatMonitor> {
    const monitor = createHeartbeatMonitor({
      name: 'sender',
      bind: '127.0.0.1:0',
      intervalMs: 50,
      localHealth: false,
    });
    await monitor.start();
    senders.push(monitor);
    return monitor;
  }

  it("records a heartbeat monitor's beats as a trace that replays", async () => {
    const source = await sender();
    const [trace] = await recordTraces({
      bind: '127.0.0.1:0',
      peers: [source.localAddress],
      durationMs: 1000,
      intervalMs: 50,
      name: 'recorder',
      onListening: (address) => source.addPeer(address),
    });
    expect(trace!.header.source).toBe('recorded');
    expect(trace!.header.recording).toMatchObject({ peer: source.localAddress, peerName: 'sender' });
    expect(trace!.header.durationMs).toBeGreaterThanOrEqual(1000);
    // About 20 beats in a second; a loaded machine delays some, none is lost on loopback.
    expect(trace!.arrivals.length).toBeGreaterThanOrEqual(5);
    const seqs = trace!.arrivals.map((a) => a.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    const parsed = parseTrace(formatTrace(trace!));
    const qos = qosMetrics(
      replayTrace(parsed, createDetector({ family: 'fixed-timeout', timeoutMs: 5000 }, 50)),
    );
    expect(qos.mistakes).toBe(0);
  });

  it('ends early when the signal aborts, and still returns what it recorded', async () => {
    const source = await sender();
    const abort = new AbortController();
    let reports = 0;
    const [trace] = await recordTraces({
      bind: '127.0.0.1:0',
      peers: [source.localAddress],
      durationMs: 60_000,
      intervalMs: 50,
      progressEveryMs: 300,
      onListening: (address) => source.addPeer(address),
      onProgress: (progress) => {
        reports++;
        expect(progress.durationMs).toBe(60_000);
        if (progress.peers[0]!.heartbeats >= 3) abort.abort();
      },
      signal: abort.signal,
    });
    expect(reports).toBeGreaterThan(0);
    expect(trace!.arrivals.length).toBeGreaterThanOrEqual(3);
    expect(trace!.header.durationMs).toBeLessThan(30_000);
  });

  it('rejects with a NetworkError when the address is taken, before recording anything', async () => {
    const source = await sender();
    await expect(
      recordTraces({ bind: source.localAddress, peers: ['127.0.0.1:9'], durationMs: 60_000 }),
    ).rejects.toMatchObject({ name: 'NetworkError', code: 'FDKIT_ADDRESS_IN_USE' });
    await expect(recordTraces({ bind: '127.0.0.1:0', peers: [], durationMs: 1000 })).rejects.toThrow(
      /at least one/,
    );
  });

  it('fdkit record writes the trace file', async () => {
    const source = await sender();
    const dir = mkdtempSync(join(tmpdir(), 'fdkit-record-'));
    const out = join(dir, 'trace.jsonl');
    const child = spawn(
      process.execPath,
      [
        BIN,
        'record',
        '--bind',
        '127.0.0.1:0',
        '--peer',
        source.localAddress,
        '--seconds',
        '1',
        '--interval-ms',
        '50',
        '--out',
        out,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], timeout: 20_000 },
    );
    let stderr = '';
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /listening on (\S+);/.exec(stderr);
      if (match !== null && source.peers().length === 0) source.addPeer(match[1]!);
    });
    const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toContain('listening on 127.0.0.1:');
    expect(status).toBe(0);
    expect(stdout).toMatch(/^wrote .*trace\.jsonl: \d+ heartbeats from 127\.0\.0\.1:\d+ \(sender\)/);
    const trace = parseTrace(readFileSync(out, 'utf8'));
    expect(trace.arrivals.length).toBeGreaterThanOrEqual(5);
  });
});
