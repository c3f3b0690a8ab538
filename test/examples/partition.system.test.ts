/**
 * The partition example end to end (`npm run example:partition`): five members in network namespaces,
 * two of them billing workers on the two sides of a 3/2 cut, the leading one on the minority side; a real
 * etcd in a sixth namespace both sides reach, and one SQLite ledger.
 *
 * The model the assertions follow: with keep-majority on every member and every write under the etcd
 * lease and its fence, only one worker can bill at a time (the lease), so nobody is charged twice,
 * and the minority, downed by its resolver, stops (docs/downing.md: not before `stableAfterMs` after
 * the cut, within `stableAfterMs` + the suspicion timeout + 2 s), after which the majority's worker takes
 * the lease and bills. With neither, each side's leader hint names its own worker during the cut, both
 * bill the same unbilled customers, and some are charged twice.
 *
 * Needs root, `ip`, `nft` and etcd; without them the example exits 1 naming what is missing, and this
 * test fails with that message.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { defaultStableAfterMs } from '../../src/downing/downing-options.js';
import { lan } from '../../src/swim/profiles.js';
import { expectedTiming } from '../../src/swim/timing.js';
import { runExample } from './run-example.js';

const MAIN = fileURLToPath(new URL('../../examples/partition/main.ts', import.meta.url));
/** Two runs of about 27 s each (measured on 2 shared cores), the namespaces and etcd's start. */
const RUN_TIMEOUT_MS = 150_000;
const MEMBERS = 5;
const STABLE_AFTER_MS = defaultStableAfterMs('lan', MEMBERS);
/** As in test/cli/agent-netns-downing.system.test.ts: 11.6 s for lan at five members. */
const DOWNED_WITHIN_MS = STABLE_AFTER_MS + expectedTiming(lan, MEMBERS).suspicionMinMs + 2000;

interface RunResult {
  doubleCharges: number;
  charges: number;
  balanced: boolean;
  stableAfterMs: number;
  minorityStopped: boolean;
  majorityRunning: boolean;
  minorityDownedAfterCutMs: (number | null)[];
  minorityExitAfterCutMs: (number | null)[];
  majorityLeaderAfterCutMs: number | null;
  majorityBilledAfterCutMs: number | null;
  chargedDuringCut: Record<string, number>;
}

interface Output {
  keepMajorityWithFencing: RunResult;
  noResolverNoFencing: RunResult;
}

/** The narration of one run: its lines on stderr. */
function narration(stderr: string, run: string): string {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith(`[${run}]`))
    .join('\n');
}

describe('examples/partition', () => {
  it('charges nobody twice with keep-majority and fencing, and some customers twice with neither', {
    timeout: RUN_TIMEOUT_MS + 15_000,
  }, async () => {
    const { code, stdout, stderr } = await runExample(MAIN, [], RUN_TIMEOUT_MS);
    expect(code, stderr).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    const output = JSON.parse(lines[0]!) as Output;
    console.log(`partition example:\n${stdout.trimEnd()}`);

    const fenced = output.keepMajorityWithFencing;
    const story = narration(stderr, 'keep-majority + fencing');
    expect(fenced.stableAfterMs).toBe(STABLE_AFTER_MS);
    expect(fenced.doubleCharges, story).toBe(0);
    expect(fenced.balanced, story).toBe(true);
    expect(fenced.majorityRunning, story).toBe(true);
    expect(fenced.minorityStopped, story).toBe(true);
    // The decision's time, as each minority member reported it; its exit follows once its batch in
    // flight is written and its lease released.
    for (const downedMs of fenced.minorityDownedAfterCutMs) {
      expect(downedMs, story).not.toBeNull();
      expect(downedMs!, story).toBeGreaterThanOrEqual(STABLE_AFTER_MS);
      expect(downedMs!, story).toBeLessThanOrEqual(DOWNED_WITHIN_MS);
    }
    expect(story).toMatch(/biller-a: downed by its resolver/);
    // The majority's worker bills during the cut, under the lease the stopped minority let go.
    expect(fenced.chargedDuringCut['biller-c'], story).toBeGreaterThan(0);
    expect(fenced.majorityBilledAfterCutMs!, story).toBeGreaterThan(fenced.minorityDownedAfterCutMs[0]!);

    const unfenced = output.noResolverNoFencing;
    const story2 = narration(stderr, 'no resolver, no fencing');
    expect(unfenced.doubleCharges, story2).toBeGreaterThan(0);
    expect(unfenced.balanced, story2).toBe(true);
    // Two leaders during the cut: each side's worker billed.
    expect(unfenced.chargedDuringCut['biller-a'], story2).toBeGreaterThan(0);
    expect(unfenced.chargedDuringCut['biller-c'], story2).toBeGreaterThan(0);
    expect(unfenced.minorityStopped, story2).toBe(false);
    expect(stderr).not.toMatch(/stderr: /);
  });
});
