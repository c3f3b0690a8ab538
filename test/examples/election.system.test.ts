/**
 * The election example end to end (`npm run example:election`): a real etcd and three candidate
 * processes whose leader hints decide who campaigns for the lease. The killed leader is replaced by the
 * next one with a higher token, which claims the journal before it writes; the frozen one is replaced
 * too, and its late write is refused (by its own lease check at the write, or by the journal's fence that
 * the new holder's claim raised); the journal never takes a write under an older token after a newer one.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runExample } from './run-example.js';

const MAIN = fileURLToPath(new URL('../../examples/election/main.ts', import.meta.url));

interface Summary {
  elected: { name: string; token: string }[];
  staleWritesRefused: number;
  refusedByLease: number;
  refusedByFence: number;
  entries: number;
  outOfOrder: number;
}

describe('examples/election', () => {
  it('moves the lease with the hint, and fences out the frozen leader', { timeout: 150_000 }, async () => {
    const { code, stdout, stderr } = await runExample(MAIN, [], 140_000);
    expect(code, `${stdout}\n${stderr}`).toBe(0);
    const summary = JSON.parse(stdout.trimEnd().split('\n').at(-1) ?? '') as Summary;
    const tokenOf = (name: string) => summary.elected.find((e) => e.name === name)?.token;
    const [t1, t2, t3] = ['c1', 'c2', 'c3'].map((name) => BigInt(tokenOf(name) ?? '-1'));
    // Each takeover comes with a higher token: c1, then c2 after the kill, then c3 after the freeze.
    expect(t1, stderr).toBeGreaterThan(0n);
    expect(t2, stderr).toBeGreaterThan(t1!);
    expect(t3, stderr).toBeGreaterThan(t2!);
    expect(summary.outOfOrder).toBe(0);
    expect(summary.entries).toBeGreaterThan(2);
    // The frozen c2 learnt it was replaced: from the journal's refusal, or from its own lease clock.
    expect(stderr).toMatch(/c2: (write REFUSED by the journal|lease lost)/);
    expect(summary.staleWritesRefused).toBe(summary.refusedByLease + summary.refusedByFence);
    console.log(`election example: ${stdout.trimEnd().split('\n').at(-1)}`);
  });
});
