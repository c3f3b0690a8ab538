/**
 * `resolveHeartbeatConfig` on its own (the monitor's and the core's option tests go through their
 * constructors): the owner its messages name by default, and the bounds of deadPhi at equality.
 */
import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors.js';
import { resolveHeartbeatConfig } from '../../src/heartbeat/config.js';

function refusal(options: object): InvalidOptionError {
  try {
    resolveHeartbeatConfig(options);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidOptionError);
    return error as InvalidOptionError;
  }
  throw new Error(`resolveHeartbeatConfig(${JSON.stringify(options)}) did not throw`);
}

describe('resolveHeartbeatConfig', () => {
  it('names HeartbeatConfig in its messages unless told another owner', () => {
    expect(refusal({ intervalMs: 0 }).message).toBe(
      'HeartbeatConfig: option intervalMs must be a number >= 1 and <= 3600000, got 0 (a number)',
    );
    expect(() => resolveHeartbeatConfig({ intervalMs: 0 }, 'Mine')).toThrow(/^Mine: option intervalMs/);
  });

  it('deadPhi may be 1000 exactly, the largest finite phi threshold, or Infinity; not more', () => {
    expect(resolveHeartbeatConfig({ deadPhi: 1000 }).deadPhi).toBe(1000);
    expect(resolveHeartbeatConfig({ deadPhi: Number.POSITIVE_INFINITY }).deadPhi).toBe(
      Number.POSITIVE_INFINITY,
    );
    const error = refusal({ deadPhi: 1000.5 });
    expect([error.code, error.option, error.message]).toEqual([
      'FDKIT_INVALID_OPTION',
      'deadPhi',
      'HeartbeatConfig: option deadPhi must be > suspectPhi (5) and <= 1000, or Infinity, got 1000.5 (a number)',
    ]);
  });

  it('deadPhi must exceed suspectPhi: equal is refused', () => {
    expect(resolveHeartbeatConfig({ suspectPhi: 8, deadPhi: 8.001 }).deadPhi).toBe(8.001);
    expect(refusal({ suspectPhi: 8, deadPhi: 8 })).toMatchObject({
      code: 'FDKIT_INVALID_OPTION',
      option: 'deadPhi',
    });
  });
});
