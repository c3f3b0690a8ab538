/**
 * The embedded-membership example (`npm run example:membership`) end to end: three HTTP instances with
 * an fdkit member each, on 127.0.0.1; the script kills the leader and must see every survivor hold it
 * dead and name the same new leader, then stop the rest and exit 0. Real processes on a real clock: the
 * only time asserted is the script's own bound.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCRIPT = 'examples/embedded-membership/run.ts';

it('forms three instances, kills the leader, and every survivor converges on one new leader', () => {
  const run = spawnSync(process.execPath, ['--import', 'tsx', SCRIPT], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  const why = `${run.stdout}\n--- stderr ---\n${run.stderr}`;
  expect(run.signal, why).toBeNull();
  expect(run.status, why).toBe(0);
  const lines = run.stdout.trimEnd().split('\n');
  expect(lines[0]).toBe('formed: 3 instances, each holding all 3 alive and naming svc-1 leader');
  // Before: each instance answers both endpoints, holding all three alive and naming svc-1.
  for (const name of ['svc-1', 'svc-2', 'svc-3']) {
    expect(lines.slice(1, 4)).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^ {2}${name} at http://127\\.0\\.0\\.1:\\d+: /members svc-1 alive, svc-2 alive, svc-3 alive; /leader svc-1 \\(epoch \\d+\\)$`,
        ),
      ),
    );
  }
  expect(lines[4]).toMatch(/^killing svc-1, the leader \(SIGKILL, pid \d+\)$/);
  expect(lines[5]).toMatch(
    /^converged \d+\.\d\d s after the kill: every survivor holds svc-1 dead and names svc-2 leader$/,
  );
  // After: both survivors hold svc-1 dead and name svc-2.
  expect(lines.slice(6)).toEqual([
    expect.stringMatching(
      /^ {2}svc-2 at .*: \/members svc-1 dead, svc-2 alive, svc-3 alive; \/leader svc-2 \(epoch \d+\)$/,
    ),
    expect.stringMatching(
      /^ {2}svc-3 at .*: \/members svc-1 dead, svc-2 alive, svc-3 alive; \/leader svc-2 \(epoch \d+\)$/,
    ),
  ]);
  expect(run.stderr).toContain('every instance exited');
}, 70_000);
