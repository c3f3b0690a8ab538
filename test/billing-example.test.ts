/**
 * The billing example end to end (`npm run example:billing`): a real etcd, two worker processes, one
 * frozen past its lease. Without fencing some customers are charged twice; with fencing none are.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('../examples/billing/main.ts', import.meta.url));

describe('examples/billing', () => {
  it('double-charges without fencing and never with it', { timeout: 90_000 }, async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += String(chunk);
    });
    child.stderr.on('data', (chunk) => {
      stderr += String(chunk);
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code, stderr).toBe(0);
    const last = stdout.trimEnd().split('\n').at(-1) ?? '';
    expect(last).toMatch(
      /^\{"withoutFencing":\{"doubleCharges":\d+\},"withFencing":\{"doubleCharges":\d+\}\}$/,
    );
    const result = JSON.parse(last) as {
      withoutFencing: { doubleCharges: number };
      withFencing: { doubleCharges: number };
    };
    expect(result.withoutFencing.doubleCharges, stderr).toBeGreaterThan(0);
    expect(result.withFencing.doubleCharges, stderr).toBe(0);
    // The story as told on stderr: the stale worker wrote anyway, or was refused and stopped.
    expect(stderr).toMatch(/\[without fencing\].*A charged customers \d+-\d+ with its stale token/);
    expect(stderr).toMatch(/\[with fencing\].*A's write refused: customers\(id=\d+\) has seen token \d+/);
    expect(stderr).toMatch(/\[with fencing\].*A stops: stale token/);
    console.log(`billing example: ${last}`);
  });
});
