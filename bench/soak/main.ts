/**
 * `npm run soak -- --minutes 30`: twenty `fdkit agent` members under steady churn (one restart a minute,
 * alternately SIGKILL and a graceful leave; one SIGSTOP pause of a few seconds every two minutes; 5 %
 * loss in network namespaces when run as root, loopback otherwise). Every 10 s each member's heap, RSS,
 * handles, timers, gossip queue and event-loop delay are read from its `/metrics`. Writes
 * bench/results/soak.json, soak.svg and soak.md; exits 1, saying why, when a heap or RSS floor grows by
 * more than the bound between the fifth minute and the last, or when a death is declared that no fault
 * explains (checks.ts).
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { LossNetwork } from '../../examples/support/netns.js';
import { expectedTiming } from '../../src/swim/timing.js';
import { benchFlags, numberFlag } from '../support/flags.js';
import { progress } from '../support/report.js';
import { checkGrowth, falseDeaths, GROWTH_BOUND, GROWTH_WINDOW_MS } from './checks.js';
import { type SoakMember, startSoakMembers } from './members.js';
import { type SoakSample, toSample } from './sampler.js';
import { churnSchedule, type Fault } from './schedule.js';
import { writeSoakResults } from './soak-report.js';

/** The soak's namespaces are `fdkit-soak-<pid>-*`: no other run's cleanup of stale ones touches them. */
const SOAK_PREFIX = 'fdkit-soak';

const USAGE = `usage: npm run soak -- [--minutes M] [--members N] [--seed S] [--loss P] [--loopback]
  --minutes M   length of the soak (default 30)
  --members N   agents (default 20)
  --seed S      seed of the churn schedule (default 1)
  --loss P      loss in % in the namespaces (default 5; root only)
  --loopback    run on loopback even as root (no loss)`;

const flags = benchFlags('bench/soak/main.ts', USAGE, process.argv.slice(2), {
  minutes: { kind: 'number', min: 1, max: 24 * 60 },
  members: { kind: 'integer', min: 6, max: 60 },
  seed: { kind: 'integer', min: 0, max: 2 ** 32 - 1 },
  loss: { kind: 'integer', min: 0, max: 30 },
  loopback: { kind: 'boolean' },
});
const minutes = numberFlag(flags, 'minutes', 30);
const count = numberFlag(flags, 'members', 20);
const seed = numberFlag(flags, 'seed', 1);
const lossPercent = numberFlag(flags, 'loss', 5);
const inNamespaces = process.getuid?.() === 0 && flags.get('loopback') !== true;

const SAMPLE_EVERY_MS = 10_000;
const SAMPLE_TIMEOUT_MS = 3000;
/** The port every agent binds in its own namespace (each namespace has its own ports). */
const NETNS_PORT = 7946;

const durationMs = minutes * 60_000;
const names = Array.from({ length: count }, (_, i) => `s${String(i).padStart(2, '0')}`);
const schedule = churnSchedule({
  names,
  durationMs,
  seed,
  restartEveryMs: 60_000,
  pauseEveryMs: 120_000,
  downMs: 2000,
  pauseMinMs: 2000,
  pauseMaxMs: 5000,
  restartPool: Math.floor(count / 4),
  pausePool: Math.floor(count / 4),
  quietEndMs: 45_000,
});
// A death explained by a fault may be declared until the whole detection is over: probing, the longest
// suspicion timeout (no confirmation), and the gossip of the death (src/swim/timing.ts at this size).
const graceMs = Math.ceil(expectedTiming({}, count).worstCaseAllKnowMs);

async function main(): Promise<number> {
  const load0 = loadavg();
  progress(
    `soak: ${count} members, ${minutes} min, seed ${seed}, ${inNamespaces ? `namespaces, ${lossPercent} % loss` : 'loopback, no loss'}; ` +
      `${schedule.faults.length} faults; load ${load0.map((l) => l.toFixed(2)).join(' ')}`,
  );
  const network = inNamespaces ? await LossNetwork.create(count, SOAK_PREFIX) : undefined;
  await network?.setLoss(lossPercent);
  let members: SoakMember[] = [];
  try {
    const hosts = network?.hosts.map((h) => ({ netns: h.netns, host: h.ip, exec: h.exec }));
    members = await startSoakMembers(names, hosts, NETNS_PORT);
    progress(`soak: ${count} members formed a cluster`);
    const byName = new Map(members.map((m) => [m.name, m]));
    const seedAddress = members[0]!.current.address;
    const samples: SoakSample[] = [];
    const loads: { atMs: number; load1: number }[] = [];
    const t0 = performance.now();
    const now = (): number => performance.now() - t0;
    const pending = [...schedule.faults];
    const ending: Fault[] = [];
    let nextSample = 0;
    while (now() < durationMs) {
      for (const f of pending.filter((f) => f.startMs <= now())) {
        pending.splice(pending.indexOf(f), 1);
        const m = byName.get(f.member)!;
        progress(
          `[${clock(now())}] ${f.kind} ${f.member} for ${((f.endMs - f.startMs) / 1000).toFixed(1)} s`,
        );
        if (f.kind === 'pause') m.pause();
        else await m.stop(f.kind === 'leave');
        ending.push(f);
      }
      for (const f of ending.filter((f) => f.endMs <= now())) {
        ending.splice(ending.indexOf(f), 1);
        const m = byName.get(f.member)!;
        if (f.kind === 'pause') m.resume();
        else m.restart(seedAddress);
      }
      if (now() >= nextSample) {
        nextSample += SAMPLE_EVERY_MS;
        const atMs = now();
        const texts = await Promise.all(members.map((m) => m.get('/metrics', SAMPLE_TIMEOUT_MS)));
        const round = members.map((m, i) => toSample({ atMs, member: m.name, life: m.life }, texts[i]));
        samples.push(...round);
        loads.push({ atMs, load1: loadavg()[0]! });
        progress(describeRound(atMs, round));
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const endMs = now();
    for (const f of ending) byName.get(f.member)!.resume();
    const deaths = members.flatMap((m) => m.deathsSeen(t0));
    const wrongDeaths = falseDeaths(deaths, schedule.faults, graceMs);
    // From the fifth minute; a short run (under 15 minutes) compares its second third with its last.
    const windowMs = Math.min(GROWTH_WINDOW_MS, durationMs / 3);
    const fromMs = windowMs;
    const growth = checkGrowth(samples, { fromMs, endMs, windowMs }, GROWTH_BOUND);
    const failures = [
      ...growth.failures,
      ...wrongDeaths.map((d) => `${d.observer} declared ${d.member} dead at ${clock(d.atMs)}: ${d.why}`),
      ...members.flatMap((m) => m.unexpectedExits()),
    ];
    const path = writeSoakResults({
      minutes,
      count,
      seed,
      mode: inNamespaces ? `namespaces, ${lossPercent} % loss` : 'loopback',
      graceMs,
      bound: GROWTH_BOUND,
      fromMs,
      windowMs,
      endMs,
      roles: Object.fromEntries(schedule.roles),
      faults: schedule.faults,
      samples,
      loads: { start: load0, during: loads, end: loadavg() },
      deaths,
      growth: growth.growths,
      failures,
    });
    progress(`soak: results in ${path}`);
    if (failures.length > 0) {
      progress(`soak FAILED:\n  ${failures.join('\n  ')}`);
      return 1;
    }
    progress('soak passed: no floor grew past the bound, no death without a fault');
    return 0;
  } finally {
    for (const m of members) if (m.paused) m.resume();
    await Promise.all(members.map((m) => m.current.kill()));
    await network?.destroy();
  }
}

function clock(ms: number): string {
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

function describeRound(atMs: number, round: readonly SoakSample[]): string {
  const answered = round.filter((s) => s.heapBytes !== null);
  const mib = (xs: (number | null)[]): string => {
    const v = xs.filter((x): x is number => x !== null);
    return v.length === 0
      ? '-'
      : `${(Math.min(...v) / 2 ** 20).toFixed(1)}–${(Math.max(...v) / 2 ** 20).toFixed(1)}`;
  };
  const most = (xs: (number | null)[]): string => {
    const v = xs.filter((x): x is number => x !== null);
    return v.length === 0 ? '-' : String(Math.round(Math.max(...v)));
  };
  return (
    `[${clock(atMs)}] ${answered.length}/${round.length} answered; heap ${mib(round.map((s) => s.heapBytes))} MiB, ` +
    `rss ${mib(round.map((s) => s.rssBytes))} MiB, lag max ${most(round.map((s) => s.lagMaxMs))} ms, ` +
    `queue max ${most(round.map((s) => s.pendingBroadcasts))}, suspect max ${most(round.map((s) => s.suspect))}, ` +
    `dead max ${most(round.map((s) => s.dead))}; load ${loadavg()[0]!.toFixed(2)}`
  );
}

process.exitCode = await main();
