/**
 * What every result of `decodeHeartbeat` promises, for any input: it never throws, a drop names one of
 * the codec's reasons, and an accepted heartbeat is valid by the independent wire oracle, re-encodes to at most its input's size and
 * decodes back to itself. Shared by the wire fuzz properties and the heartbeat wire suite.
 */
import { expect } from 'vitest';
import {
  DROP_REASONS,
  decodeHeartbeat,
  encodeHeartbeat,
  type HeartbeatResult,
} from '../../src/wire/index.js';
import { heartbeatViolation } from './wire-oracle.js';

/** Checks the result of decoding `input` as a heartbeat; returns whether it was accepted. */
export function checkHeartbeatResult(input: Uint8Array): boolean {
  let result: HeartbeatResult | undefined;
  expect(() => {
    result = decodeHeartbeat(input);
  }).not.toThrow();
  if (result === undefined) throw new Error('unreachable');
  if (!result.ok) {
    expect(DROP_REASONS).toContain(result.reason);
    expect(result.detail.startsWith('internal')).toBe(false);
    return false;
  }
  expect(heartbeatViolation(result.heartbeat)).toBeUndefined();
  const again = encodeHeartbeat(result.heartbeat);
  expect(again.length).toBeLessThanOrEqual(input.length);
  const back = decodeHeartbeat(again);
  expect(back.ok && back.heartbeat).toEqual(result.heartbeat);
  return true;
}
