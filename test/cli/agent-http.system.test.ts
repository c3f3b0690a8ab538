/**
 * `fdkit agent --http` on five real agent processes (loopback, from the build): every agent serves its
 * API on a port of its own; /metrics, /v1/members and the event stream move under a `kill -9`; the
 * `fdkit members` and `fdkit leave` commands work against it; an address that is not loopback needs a
 * token. Waits are bounded polls; the only timing asserted is the death watch's 2 s goal plus slack,
 * and that the death was not seen before the kill.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HealthJson, LeaderJson, MemberJson } from '../../src/http/api-types.js';
import { openSse } from '../http/serve.js';
import { type AgentProcess, BIN, killAll, startCluster, waitUntil } from './agent-process.js';

const NAMES = ['h0', 'h1', 'h2', 'h3', 'h4'];
const KILLED = 'h4';
const LEAVER = 'h3';

let agents: AgentProcess[] = [];
const urls = new Map<string, string>();

function urlOf(agent: AgentProcess): string | undefined {
  for (const line of agent.stderrLines) {
    const parsed = JSON.parse(line) as { msg?: string; url?: string };
    if (parsed.msg === 'http api listening' && parsed.url !== undefined) return parsed.url;
  }
  return undefined;
}

async function getJson<T>(name: string, path: string): Promise<T> {
  return (await (await fetch(`${urls.get(name)}${path}`)).json()) as T;
}

/** The value of one sample of the Prometheus text, or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

function fdkit(args: readonly string[]) {
  return spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 15_000 });
}

beforeAll(async () => {
  agents = await startCluster(NAMES, { args: ['--http', '127.0.0.1:0'] });
  await waitUntil(() => agents.every((a) => urlOf(a) !== undefined), 5_000);
  for (const agent of agents) urls.set(agent.name, urlOf(agent) ?? '');
}, 60_000);

afterAll(async () => {
  await killAll(agents);
});

describe('fdkit agent --http on five agents', () => {
  it('serves every member alive, ready health, a leader and the metrics of a formed cluster', async () => {
    expect([...urls.values()].every((u) => /^http:\/\/127\.0\.0\.1:\d+$/.test(u))).toBe(true);
    expect(new Set(urls.values()).size).toBe(5);
    const members = await getJson<MemberJson[]>('h0', '/v1/members');
    expect(members.map((m) => [m.name, m.state, m.local]).sort()).toEqual(
      NAMES.map((n) => [n, 'alive', n === 'h0']),
    );
    // Ready, or degraded while a loaded machine holds its local health above 0: joined either way.
    const health = await fetch(`${urls.get('h1')}/v1/health`);
    expect(health.status).toBe(200);
    const body = (await health.json()) as HealthJson;
    expect(body.joined).toBe(true);
    expect(body.status).toBe(body.localHealth > 0 ? 'degraded' : 'ready');
    // The default rank: no priority in any metadata, so the smallest name leads. The hint starts before
    // the join, naming its own member, so the epoch counts the moves until then.
    expect(await getJson<LeaderJson>('h2', '/v1/leader')).toMatchObject({ leader: 'h0', isLeader: false });
    expect((await getJson<LeaderJson>('h0', '/v1/leader')).isLeader).toBe(true);
    const metrics = await (await fetch(`${urls.get('h0')}/metrics`)).text();
    expect(sample(metrics, 'fdkit_members{state="alive"}')).toBe(5);
    expect(sample(metrics, 'fdkit_members{state="dead"}')).toBe(0);
  });

  it('moves the metrics, the members and the stream when one agent is killed with SIGKILL', async () => {
    const stream = await openSse(`${urls.get('h0')}/v1/events`);
    await stream.until(/: fdkit events/);
    const before = await (await fetch(`${urls.get('h0')}/metrics`)).text();
    const deathsBefore = sample(before, 'fdkit_deaths_total{cause="connection-refused"}') ?? 0;
    expect(stream.text()).not.toMatch(/"type":"dead","member":"h4"/);
    const killedAt = performance.now();
    agents.find((a) => a.name === KILLED)?.signal('SIGKILL');
    const dead = async (): Promise<boolean> =>
      (await getJson<MemberJson[]>('h0', '/v1/members')).find((m) => m.name === KILLED)?.state === 'dead';
    let seen = false;
    for (let i = 0; i < 100 && !seen; i++) {
      seen = await dead();
      if (!seen) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const seenMs = performance.now() - killedAt;
    expect(seen).toBe(true);
    expect(seenMs).toBeLessThan(2_000 + 1_000);
    await stream.until(/"type":"dead","member":"h4"/);
    const after = await (await fetch(`${urls.get('h0')}/metrics`)).text();
    expect(sample(after, 'fdkit_members{state="dead"}')).toBe(1);
    expect(sample(after, 'fdkit_members{state="alive"}')).toBe(4);
    const deaths = after
      .split('\n')
      .filter((l) => l.startsWith('fdkit_deaths_total{'))
      .reduce((sum, l) => sum + Number(l.split(' ')[1]), 0);
    expect(deaths).toBeGreaterThanOrEqual(1);
    expect(deathsBefore).toBe(0);
    await stream.cancel();
  });

  it('prints the table with `fdkit members --http`, the dead member in it', () => {
    const out = fdkit(['members', '--http', urls.get('h1')!.replace('http://', '')]);
    expect(out.status, out.stderr).toBe(0);
    const rows = out.stdout.trim().split('\n');
    expect(rows[0]).toMatch(/^NAME +ADDRESS +STATE/);
    expect(rows).toHaveLength(6);
    expect(rows.find((r) => r.startsWith('h1 *'))).toMatch(/ alive /);
    expect(rows.find((r) => r.startsWith(`${KILLED} `))).toMatch(/ dead /);
    const dead = fdkit(['members', '--http', urls.get('h1')!, '--state', 'dead', '--json']);
    expect((JSON.parse(dead.stdout) as MemberJson[]).map((m) => m.name)).toEqual([KILLED]);
  });

  it('makes an agent leave with `fdkit leave --http`: it exits 0 and the others hold it left', async () => {
    const leaver = agents.find((a) => a.name === LEAVER)!;
    const out = fdkit(['leave', '--http', urls.get(LEAVER)!]);
    expect(out.status, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/^left: \d of 3 live members acknowledged/);
    expect(await waitUntil(() => !leaver.running, 10_000)).toBe(true);
    expect(leaver.exit?.code).toBe(0);
    expect(await waitUntil(() => agents[0]!.stateOf(LEAVER) === 'left', 10_000)).toBe(true);
    const gone = fdkit(['members', '--http', urls.get(LEAVER)!]);
    expect(gone.status).toBe(1);
    expect(gone.stderr).toMatch(
      /cannot reach the agent at http:\/\/127\.0\.0\.1:\d+ .*is it running with --http\?/,
    );
  });
});

describe('fdkit agent --http refuses', () => {
  it('an address that is not loopback without a token, and a token too short to be safe', () => {
    const open = fdkit(['agent', '--name', 'x', '--bind', '127.0.0.1:0', '--http', '0.0.0.0:0']);
    expect(open.status).toBe(2);
    expect(open.stderr).toContain('--http 0.0.0.0:0 is not a loopback address');
    const dir = mkdtempSync(join(tmpdir(), 'fdkit-http-'));
    writeFileSync(join(dir, 'token'), 'short\n');
    const short = fdkit([
      'agent',
      '--name',
      'x',
      '--bind',
      '127.0.0.1:0',
      '--http',
      '0.0.0.0:0',
      '--http-token-file',
      join(dir, 'token'),
    ]);
    expect(short.status).toBe(2);
    expect(short.stderr).toContain('at least 16 characters');
    expect(short.stderr).not.toContain('short\n');
  });
});
