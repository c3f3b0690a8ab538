/**
 * `fdkit agent --downing keep-majority` on three real agent processes (loopback, from the build): a
 * `kill -9` of one leaves two of three, a majority, which down it and keep running; a `kill -9` of a
 * second leaves one of two counted, an even split that the lowest name keeps; the usage mistakes exit 2.
 * Waits are bounded polls; the decision comes `--stable-after-ms` after the view settles, not before.
 */
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { afterAll, describe, expect, it } from 'vitest';
import { type AgentProcess, BIN, killAll, startCluster, waitUntil } from './agent-process.js';

const STABLE_MS = 1_500;
let agents: AgentProcess[] = [];

afterAll(async () => {
  await killAll(agents);
});

function logged(agent: AgentProcess, msg: string): { reason?: string; members?: string[] } | undefined {
  for (const line of agent.stderrLines) {
    const parsed = JSON.parse(line) as { msg?: string; reason?: string; members?: string[] };
    if (parsed.msg?.startsWith(msg)) return parsed;
  }
  return undefined;
}

describe('fdkit agent --downing keep-majority', () => {
  it('the majority downs a killed member and runs on; the lone survivor of an even split keeps the lowest name', async () => {
    agents = await startCluster(['d0', 'd1', 'd2'], {
      args: ['--downing', 'keep-majority', '--stable-after-ms', String(STABLE_MS)],
    });
    const [d0, d1, d2] = agents as [AgentProcess, AgentProcess, AgentProcess];
    const killedAt = performance.now();
    d2.signal('SIGKILL');
    const downed = await waitUntil(
      () => [d0, d1].every((a) => logged(a, 'downed unreachable members') !== undefined),
      20_000,
    );
    expect(downed, [d0, d1].map((a) => a.stderrLines.slice(-3).join('\n')).join('\n')).toBe(true);
    expect(performance.now() - killedAt).toBeGreaterThanOrEqual(STABLE_MS);
    for (const a of [d0, d1]) {
      expect(logged(a, 'downed unreachable members')).toMatchObject({
        members: ['d2'],
        reason: 'majority: 2 of 3 reachable',
      });
      expect(a.running).toBe(true);
    }
    // Now d0 and d1 count two: killing d0 leaves d1 on the side without the lowest name.
    d0.signal('SIGKILL');
    expect(await waitUntil(() => !d1.running, 20_000), d1.stderrLines.slice(-3).join('\n')).toBe(true);
    expect(d1.exit?.code).toBe(3);
    expect(logged(d1, 'downed by the split-brain resolver')).toMatchObject({
      reason: 'even split of 2: the other side holds d0, the lowest name',
    });
  }, 90_000);

  it('refuses lease-majority, an unknown strategy and a quorum size without static-quorum', () => {
    const run = (args: string[]) =>
      spawnSync(process.execPath, [BIN, 'agent', '--name', 'x', '--bind', '127.0.0.1:0', ...args], {
        encoding: 'utf8',
        timeout: 15_000,
      });
    for (const [args, says] of [
      [['--downing', 'lease-majority'], 'needs a lease the agent cannot make'],
      [
        ['--downing', 'keep-biggest'],
        "--downing takes keep-majority, static-quorum, keep-oldest, keep-oldest-down-if-alone, down-all, got 'keep-biggest'",
      ],
      [
        ['--downing', 'keep-majority', '--quorum-size', '3'],
        '--quorum-size N goes with --downing static-quorum',
      ],
      [['--stable-after-ms', '100'], '--stable-after-ms needs --downing'],
    ] as const) {
      const out = run([...args]);
      expect(out.status, out.stderr).toBe(2);
      expect(out.stderr).toContain(says);
    }
  });
});
