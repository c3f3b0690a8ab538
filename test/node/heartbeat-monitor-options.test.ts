/**
 * Options of `createHeartbeatMonitor` (and of the core, which shares the tunables): defaults and the ones
 * derived from others, every option out of its range refused with an `InvalidOptionError` naming it and
 * the range, misspelt options refused as unknown, and peers checked before anything is bound.
 */
import { describe, expect, it } from 'vitest';
import { InvalidOptionError, NetworkError } from '../../src/errors.js';
import { resolveHeartbeatConfig } from '../../src/heartbeat/config.js';
import { createHeartbeatMonitor } from '../../src/node/heartbeat-monitor.js';
import type { HeartbeatMonitorOptions } from '../../src/node/heartbeat-monitor-options.js';
import { thrown } from '../support/node-harness.js';

function refusal(options: unknown): InvalidOptionError {
  const error = thrown(() => createHeartbeatMonitor(options as HeartbeatMonitorOptions));
  expect(error).toBeInstanceOf(InvalidOptionError);
  return error as InvalidOptionError;
}

describe('defaults', () => {
  it('are Akka-based and documented; the suspicion timeout and first estimate derive from others', () => {
    expect(resolveHeartbeatConfig({})).toEqual({
      intervalMs: 1000,
      suspectPhi: 5,
      deadPhi: Number.POSITIVE_INFINITY,
      suspicionTimeoutMs: 4000,
      awarenessMaxMultiplier: 8,
      maxSampleSize: 1000,
      minStdDeviationMs: 100,
      acceptableHeartbeatPauseMs: 3000,
      firstHeartbeatEstimateMs: 1000,
      distribution: 'normal',
    });
    expect(resolveHeartbeatConfig({ intervalMs: 200, acceptableHeartbeatPauseMs: 600 })).toMatchObject({
      suspicionTimeoutMs: 800,
      firstHeartbeatEstimateMs: 200,
    });
    expect(Object.isFrozen(resolveHeartbeatConfig({}))).toBe(true);
  });
});

describe('every tunable is range-checked, naming the option and its range', () => {
  const cases: [string, unknown[], RegExp][] = [
    ['intervalMs', [0, -1, 3_600_001, Number.NaN, '1000'], /intervalMs must be a number >= 1 and <= 3600000/],
    ['suspectPhi', [0, -1, 1001, Number.POSITIVE_INFINITY], /suspectPhi must be a number > 0 and <= 1000/],
    ['deadPhi', [0, -1, Number.NaN], /deadPhi must be a number > 0/],
    ['suspicionTimeoutMs', [-1, Number.POSITIVE_INFINITY], /suspicionTimeoutMs must be a number >= 0/],
    ['awarenessMaxMultiplier', [0, 1.5, 1001], /awarenessMaxMultiplier must be an integer >= 1 and <= 1000/],
    ['maxSampleSize', [0, 2.5, 1_000_001], /maxSampleSize must be an integer >= 1 and <= 1000000/],
    ['minStdDeviationMs', [0, -5], /minStdDeviationMs must be a number > 0/],
    ['acceptableHeartbeatPauseMs', [-1, 4e10], /acceptableHeartbeatPauseMs must be a number >= 0/],
    ['firstHeartbeatEstimateMs', [0, -1], /firstHeartbeatEstimateMs must be a number > 0/],
    ['distribution', ['poisson', 1], /distribution must be one of 'normal', 'exponential'/],
  ];
  it.each(cases)('%s', (option, values, message) => {
    for (const value of values) {
      const error = refusal({ [option]: value });
      expect(error.code).toBe('FDKIT_INVALID_OPTION');
      expect(error.option).toBe(option);
      expect(error.message).toMatch(message);
      expect(error.message).toMatch(/^createHeartbeatMonitor: /);
    }
  });

  it('deadPhi must exceed suspectPhi, and be at most 1000 or Infinity (off)', () => {
    const error = refusal({ suspectPhi: 8, deadPhi: 8 });
    expect([error.option, error.message]).toEqual([
      'deadPhi',
      'createHeartbeatMonitor: option deadPhi must be > suspectPhi (8) and <= 1000, or Infinity, got 8 (a number)',
    ]);
    expect(refusal({ deadPhi: 1001 }).message).toMatch(
      /deadPhi must be > suspectPhi \(5\) and <= 1000, or Infinity, got 1001/,
    );
    expect(() => createHeartbeatMonitor({ suspectPhi: 8, deadPhi: 8.5 })).not.toThrow();
    expect(() => createHeartbeatMonitor({ deadPhi: Number.POSITIVE_INFINITY })).not.toThrow();
  });

  it('a derived default never exceeds its range', () => {
    expect(resolveHeartbeatConfig({ acceptableHeartbeatPauseMs: 31_536_000_000 }).suspicionTimeoutMs).toBe(
      31_536_000_000,
    );
  });
});

describe('the other options', () => {
  it('unknown or misspelt options are refused as such; null is not a default', () => {
    expect(refusal({ interval: 1000 })).toMatchObject({ code: 'FDKIT_UNKNOWN_OPTION', option: 'interval' });
    expect(refusal({ threshold: 8 })).toMatchObject({ code: 'FDKIT_UNKNOWN_OPTION', option: 'threshold' });
    expect(refusal({ intervalMs: null })).toMatchObject({ option: 'intervalMs' });
    expect(refusal(null)).toMatchObject({ code: 'FDKIT_INVALID_OPTION' });
  });

  it('identity, transport, freezeGuard and localHealth', () => {
    expect(refusal({ name: '' }).option).toBe('name');
    expect(refusal({ name: 'x'.repeat(256) }).option).toBe('name');
    expect(refusal({ incarnation: -1 }).option).toBe('incarnation');
    expect(refusal({ incarnation: 2 ** 32 }).option).toBe('incarnation');
    expect(refusal({ transport: 'udp' }).option).toBe('transport');
    expect(refusal({ freezeGuard: 'yes' }).option).toBe('freezeGuard');
    expect(refusal({ localHealth: true }).option).toBe('localHealth');
    expect(refusal({ localHealth: { thresholdMs: 0 } }).option).toBe('localHealth.thresholdMs');
  });

  it('peers: "host:port" or { name?, address }, each listed once, checked before binding', () => {
    expect(() =>
      createHeartbeatMonitor({
        peers: ['10.0.0.2:7947', { name: 'b', address: '[::1]:7947' }, { address: 'h:1' }],
      }),
    ).not.toThrow();
    for (const [peers, message] of [
      ['10.0.0.2:7947', /peers must be an array/],
      [['10.0.0.2'], /peers\[0\]: .*port is missing/],
      [['10.0.0.2:0'], /peers\[0\]: .*port 0/],
      [[{ name: 'b' }], /peers\[0\]: a peer needs an address/],
      [[{ name: '', address: 'h:1' }], /peers\[0\]: a peer name must be/],
      [[5], /peers\[0\]: a peer is/],
      [['h:1', 'H:1'], /peers\[1\]: h:1 is listed twice/],
      [
        [
          { name: 'b', address: 'h:1' },
          { name: 'b', address: 'h:2' },
        ],
        /peers\[1\]: b is listed twice/,
      ],
    ] as const) {
      const error = refusal({ peers });
      expect(error.option).toBe('peers');
      expect(error.message).toMatch(message);
    }
    expect(refusal({ peers: ['nope'] }).cause).toBeInstanceOf(NetworkError);
  });
});
