/**
 * The warnings for drops that show a misconfigured peer, on virtual time: one warn line per reason per
 * 10 s at most, the next one telling how many were left out; other reasons are not warned about.
 */
import { describe, expect, it } from 'vitest';
import { DropWarnings } from '../../src/node/drop-warnings.js';
import type { Logger } from '../../src/runtime/logger.js';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';

function recorder() {
  const lines: Array<{ atMs: number; fields: Record<string, unknown>; message: string }> = [];
  const clock = new VirtualClock();
  const log: Logger = {
    debug: () => {},
    info: () => {},
    error: () => {},
    warn: (fields, message) => lines.push({ atMs: clock.now(), fields: fields as never, message }),
  };
  return { clock, lines, warnings: new DropWarnings(clock, log) };
}

describe('DropWarnings', () => {
  it('warns once per reason per 10 s, and the next line counts the ones left out', () => {
    const { clock, lines, warnings } = recorder();
    const start = clock.now();
    expect(warnings.warn('decrypt-failed', { from: 'a' })).toBe(true);
    for (let i = 0; i < 5; i++) {
      clock.advanceTo(start + 1000 * (i + 1));
      warnings.warn('decrypt-failed', { from: 'a' });
    }
    warnings.warn('not-encrypted', { from: 'b' }); // a reason of its own: not held back by the other
    clock.advanceTo(start + 9_999);
    warnings.warn('decrypt-failed', { from: 'a' });
    expect(lines.map((l) => [l.atMs - start, l.fields.reason, l.fields.suppressed])).toEqual([
      [0, 'decrypt-failed', undefined],
      [5000, 'not-encrypted', undefined],
    ]);
    clock.advanceTo(start + 10_000);
    warnings.warn('decrypt-failed', { from: 'a' });
    expect(lines.at(-1)).toMatchObject({
      atMs: start + 10_000,
      fields: { reason: 'decrypt-failed', suppressed: 6, from: 'a' },
      message: 'dropped a message no installed key could open (another key or another cluster label)',
    });
    clock.advanceTo(start + 20_000);
    warnings.warn('decrypt-failed', { from: 'a' });
    expect(lines.at(-1)?.fields.suppressed).toBeUndefined();
  });

  it('does not warn about drops that show no misconfiguration', () => {
    const { lines, warnings } = recorder();
    expect(warnings.warn('malformed', {})).toBe(false);
    expect(warnings.warn('invalid-field', {})).toBe(false);
    expect(warnings.warn('unexpected-encryption', {})).toBe(true);
    expect(lines.map((l) => l.fields.reason)).toEqual(['unexpected-encryption']);
  });
});
