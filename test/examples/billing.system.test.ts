/**
 * The billing example end to end (`npm run example:billing -- --wake-at POINT`): a real etcd, two worker
 * processes, A frozen between its read and its write until B, the new holder, reaches POINT. Every point
 * runs against one etcd (`--wake-at all`), once with the lease as the fence holder and once with the bare
 * token (`--fence-only`), so that the database fence, not A's own lease check, is what refuses A.
 *
 * The model the assertions follow: without fencing A's stale batch is charged twice exactly when B has
 * read it as unbilled before A's write lands (after-read, after-first-write, after-done); woken before B
 * reads (after-acquire, after-claim), A's write lands first, B finds those customers billed, and nobody is
 * charged twice. With fencing nobody is ever charged twice: A is refused, except with the bare token at
 * after-acquire, where B has not claimed yet and A's write lands, harmlessly, before B reads.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runExample } from './run-example.js';

const MAIN = fileURLToPath(new URL('../../examples/billing/main.ts', import.meta.url));
const POINTS = ['after-acquire', 'after-claim', 'after-read', 'after-first-write', 'after-done'] as const;
/** The points at which B has read A's batch as unbilled before A, woken, writes it. */
const B_READ_FIRST = new Set<string>(['after-read', 'after-first-write', 'after-done']);
/** A's batch in flight when it froze. */
const BATCH = 20;
const CUSTOMERS = 120;
/** Ten runs of 6 to 15 s each (measured on 2 cores at a load average of 14), and etcd's start. */
const ALL_POINTS_TIMEOUT_MS = 300_000;

interface Outcome {
  doubleCharges: number;
  charges: number;
  unbilled: number;
  staleWrite: 'charged' | 'refused';
  refusedBy?: 'lease' | 'fence';
  staleCharged: number;
  frozenMs: number;
  wokenPastDeadlineMs: number;
}

interface PointResult {
  wakeAt: string;
  fenceOnly: boolean;
  withoutFencing: Outcome;
  withFencing: Outcome;
}

function results(stdout: string): Map<string, PointResult> {
  const parsed = stdout
    .trimEnd()
    .split('\n')
    .filter((line) => line.startsWith('{"wakeAt"'))
    .map((line) => JSON.parse(line) as PointResult);
  return new Map(parsed.map((result) => [result.wakeAt, result]));
}

/** The narration of one run: its lines on stderr. */
function narration(stderr: string, point: string, run: string): string {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith(`[${point}, ${run}]`))
    .join('\n');
}

function expectWithoutFencing(point: string, outcome: Outcome, stderr: string): void {
  const story = narration(stderr, point, 'without fencing');
  // Unfenced, A's write always lands: nothing refuses it.
  expect(outcome.staleWrite, story).toBe('charged');
  expect(outcome.staleCharged, story).toBe(BATCH);
  expect(story).toMatch(/A charged 20 of customers 41-60 with its stale token \d+/);
  expect(outcome.unbilled, story).toBe(0);
  if (B_READ_FIRST.has(point)) {
    expect(outcome.doubleCharges, story).toBe(BATCH);
    expect(outcome.charges, story).toBe(CUSTOMERS + BATCH);
  } else {
    // Woken before B read anything: B reads after A's write and finds A's batch billed.
    expect(outcome.doubleCharges, story).toBe(0);
    expect(outcome.charges, story).toBe(CUSTOMERS);
    expect(story).toMatch(/B has read nothing yet, and will find them billed/);
  }
}

describe('examples/billing', () => {
  it('a bad flag or an unknown point is a usage error', async () => {
    const unknown = await runExample(MAIN, ['--wake-at', 'after-lunch'], 30_000);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--wake-at: unknown point "after-lunch"');
    for (const point of POINTS) expect(unknown.stderr).toContain(point);
    const flag = await runExample(MAIN, ['--wake-up'], 30_000);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("'--wake-up'");
    expect(flag.stdout).toBe('');
  });

  it('at every wake point: charged twice exactly where B read first without fencing, never with it', {
    timeout: ALL_POINTS_TIMEOUT_MS + 15_000,
  }, async () => {
    const { code, stdout, stderr } = await runExample(MAIN, ['--wake-at', 'all'], ALL_POINTS_TIMEOUT_MS);
    expect(code, stderr).toBe(0);
    const byPoint = results(stdout);
    expect([...byPoint.keys()]).toEqual([...POINTS]);
    // The last line names the last point, as each point's line does.
    expect(stdout.trimEnd().split('\n').at(-1)).toMatch(/^\{"wakeAt":"after-done",/);
    for (const point of POINTS) {
      const result = byPoint.get(point)!;
      expect(result.fenceOnly).toBe(false);
      expectWithoutFencing(point, result.withoutFencing, stderr);
      const story = narration(stderr, point, 'with fencing');
      expect(result.withFencing.doubleCharges, story).toBe(0);
      expect(result.withFencing.unbilled, story).toBe(0);
      expect(result.withFencing.charges, story).toBe(CUSTOMERS);
      // With the lease as holder, woken A's own clock check at the write refuses it first.
      expect(result.withFencing.staleWrite, story).toBe('refused');
      expect(result.withFencing.refusedBy, story).toBe('lease');
      expect(story).toMatch(/A's write refused by its own lease check: lease billing expired/);
      expect(story).toMatch(/A stops: refused/);
      expect(story).toMatch(/balances match the ledger/);
    }
    console.log(`billing example, lease as holder:\n${stdout.trimEnd()}`);
  });

  it('with the bare token, the database fence refuses A at every point after B has claimed', {
    timeout: ALL_POINTS_TIMEOUT_MS + 15_000,
  }, async () => {
    const { code, stdout, stderr } = await runExample(
      MAIN,
      ['--wake-at', 'all', '--fence-only'],
      ALL_POINTS_TIMEOUT_MS,
    );
    expect(code, stderr).toBe(0);
    const byPoint = results(stdout);
    expect([...byPoint.keys()]).toEqual([...POINTS]);
    for (const point of POINTS) {
      const result = byPoint.get(point)!;
      expect(result.fenceOnly).toBe(true);
      expectWithoutFencing(point, result.withoutFencing, stderr);
      const story = narration(stderr, point, 'fence only');
      expect(result.withFencing.doubleCharges, story).toBe(0);
      expect(result.withFencing.unbilled, story).toBe(0);
      expect(result.withFencing.charges, story).toBe(CUSTOMERS);
      expect(story).toMatch(/balances match the ledger/);
      if (point === 'after-acquire') {
        // B holds the lease but has not claimed: the fence still holds A's token, and A's write lands,
        // before B has read anything.
        expect(result.withFencing.staleWrite, story).toBe('charged');
        expect(result.withFencing.staleCharged, story).toBe(BATCH);
        expect(story).toMatch(/B has not claimed yet, so the fence still holds \d+; B has read nothing yet/);
      } else {
        expect(result.withFencing.staleWrite, story).toBe('refused');
        expect(result.withFencing.refusedBy, story).toBe('fence');
        expect(story).toMatch(
          /A's write refused by the database fence: stale fencing token \d+ for fdkit_fences\(resource=billing\)/,
        );
      }
    }
    console.log(`billing example, bare token (--fence-only):\n${stdout.trimEnd()}`);
  });
});
