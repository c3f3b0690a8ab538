/**
 * A host crash, side by side with memberlist (issue 19): in network namespaces, the link of one member's
 * host goes down (`ip link set eth0 down` inside its namespace), which leaves no kernel evidence, and
 * every other member must notice it by probing. The same fault at the same moment in a cluster of
 * `fdkit agent`s at each profile asked for and in a cluster of memberlist agents (bench/peers'
 * Go agent, `DefaultLANConfig()`); the ratio fdkit / memberlist of the median times is the result, as
 * absolute numbers move with the machine's load.
 *
 * Usage: `flock /tmp/fdkit-heavy.lock npm run bench:linkdown -- [--members 5,20] [--reps R[,R...]]
 * [--profile lan[,memberlist-lan,...]] [--warmup-s S] [--wait-s S] [--timeout-s S] [--no-write] [--json]`.
 * `--reps` gives the repetitions for every size, or one per size in `--members`' order; it defaults to 5
 * at up to 5 members, 3 above. Progress goes to stderr, the tables to stdout (the
 * JSON instead with `--json`), results to `bench/results/linkdown.{json,md}`. The defaults take about
 * four minutes.
 *
 * Setup as bench/peers (bench/peers/setup.ts): Debian's Go and memberlist sources (installed when
 * missing), the Go agent built offline; `dist/` rebuilt when older than `src/`. Needs root, `ip` and
 * `nft`.
 *
 * For each cluster size: one `LossNetwork` (examples/support/netns.ts) with a namespace per member of
 * every contender, all on one bridge, created under the prefix `fdkit-linkdown` (stale ones of crashed
 * runs removed first); then per repetition fresh clusters on a port of their own (bench/linkdown/
 * cluster.ts), converged, a warm-up, the links down, a bounded wait until every survivor of every
 * contender holds its victim dead, two more seconds watched for false deaths, every member killed and
 * the links up again. Members run under `timeout -s KILL` past the bench's hard timeout; on every way out
 * (end, error, signal, hard timeout) members are killed and the namespaces deleted.
 */
import { join } from 'node:path';
import { LossNetwork } from '../../examples/support/netns.js';
import { killEveryMember } from '../peers/cluster.js';
import { buildMemberlistAgent, ensurePackages, versions } from '../peers/setup.js';
import { runBounded } from '../support/bounded-main.js';
import { ensureDist, sourceState } from '../support/dist.js';
import { benchFlags, numberFlag, stringFlag, usageError } from '../support/flags.js';
import { machine, progress, sleep, toJson, writeResult } from '../support/report.js';
import { analyzeLinkDown, type LinkDown, type LinkDownRun, ratios, summarize } from './analysis.js';
import { type Contender, type Launch, NetnsCluster } from './cluster.js';
import { jsonReport, markdown, plainTables } from './report.js';

interface Settings {
  readonly members: readonly number[];
  /** Per size in `members`' order; undefined: the default of {@link repsAt}. */
  readonly reps: readonly number[] | undefined;
  readonly profiles: readonly string[];
  /** From convergence to the fault: steady state, as bench/peers measures it. */
  readonly warmupS: number;
  readonly waitS: number;
  readonly timeoutS: number;
  readonly write: boolean;
  readonly json: boolean;
}

const USAGE =
  'usage: flock /tmp/fdkit-heavy.lock npm run bench:linkdown -- [--members 5,20] [--reps R[,R...]] [--profile lan[,memberlist-lan,...]] [--warmup-s S] [--wait-s S] [--timeout-s S] [--no-write] [--json]';

const NETNS_NAME = 'fdkit-linkdown';
/** Each attempt's clusters use a port of their own, counted up from this: no socket of a killed run in the way. */
const PORT_BASE = 7946;
/** Attempts at a repetition whose clusters do not form (a member that exits while 60 processes start). */
const FORM_ATTEMPTS = 3;
const CONVERGE_TIMEOUT_MS = 60_000;
/** Watched after the last survivor knew, for late false deaths. */
const LATE_EVENTS_MS = 2000;
const MEMBERLIST: Contender = { label: 'memberlist', system: 'memberlist' };

function settings(argv: readonly string[]): Settings {
  const f = benchFlags('bench/linkdown/main.ts', USAGE, argv, {
    members: { kind: 'string' },
    reps: { kind: 'string' },
    profile: { kind: 'string' },
    'warmup-s': { kind: 'number', min: 0, max: 600 },
    'wait-s': { kind: 'number', min: 1, max: 600 },
    'timeout-s': { kind: 'number', min: 30, max: 7200 },
    'no-write': { kind: 'boolean' },
    json: { kind: 'boolean' },
  });
  const list = (flag: string, fallback: string): string[] =>
    (stringFlag(f, flag) ?? fallback)
      .split(',')
      .map((x) => x.trim())
      .filter((x) => x !== '');
  const members = list('members', '5,20').map(Number);
  for (const n of members) {
    if (!Number.isInteger(n) || n < 3 || n > 50)
      usageError(`--members: integers from 3 to 50, got ${n}`, USAGE);
  }
  if (new Set(members).size !== members.length) usageError('--members: each size once', USAGE);
  const reps = f.has('reps') ? list('reps', '').map(Number) : undefined;
  if (reps !== undefined) {
    if (reps.length !== 1 && reps.length !== members.length) {
      usageError(
        `--reps: one count, or one per size of --members (${members.length}), got ${reps.length}`,
        USAGE,
      );
    }
    for (const r of reps) {
      if (!Number.isInteger(r) || r < 1 || r > 50)
        usageError(`--reps: integers from 1 to 50, got ${r}`, USAGE);
    }
  }
  const profiles = list('profile', 'lan');
  if (profiles.length === 0) usageError('--profile: name at least one', USAGE);
  return {
    members,
    reps,
    profiles,
    // Past the joins' gossip. The seconds-long times measured here did not change beyond their spread
    // with 30 s (bench/peers' warm-up, for V8's full GC about 25 s after a Node.js process starts).
    warmupS: numberFlag(f, 'warmup-s', 10),
    waitS: numberFlag(f, 'wait-s', 60),
    timeoutS: numberFlag(f, 'timeout-s', 1800),
    write: !f.has('no-write'),
    json: f.has('json'),
  };
}

/** Repetitions at `n` members: as asked, else 5 for a small cluster and 3 for a larger one. */
function repsAt(s: Settings, n: number): number {
  if (s.reps !== undefined) return s.reps[s.reps.length === 1 ? 0 : s.members.indexOf(n)]!;
  return n <= 5 ? 5 : 3;
}

async function waitFor(condition: () => boolean, timeoutMs: number, stepMs = 50): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (condition()) return true;
    if (performance.now() >= deadline) return false;
    await sleep(stepMs);
  }
}

/** One repetition at `n` members: fresh clusters, converged, the links down, the outcome of each. */
/** The clusters of a repetition did not form: nothing was measured, and the repetition may start again. */
class NotFormed extends Error {}

async function repetition(
  s: Settings,
  network: LossNetwork,
  contenders: readonly Contender[],
  launch: Launch,
  n: number,
  rep: number,
  port: number,
): Promise<LinkDownRun[]> {
  const label = `n=${n} rep ${rep + 1}/${repsAt(s, n)}`;
  const clusters = contenders.map(
    (c, i) => new NetnsCluster(c, network.hosts.slice(i * n, (i + 1) * n), port, launch),
  );
  const victimIndex = n - 1;
  let linksDown = false;
  try {
    const startedAt = performance.now();
    await Promise.all(clusters.map((c) => c.start())).catch((error: unknown) => {
      throw new NotFormed(`${label}: ${error instanceof Error ? error.message : String(error)}`);
    });
    const formed = await waitFor(
      () => clusters.every((c) => c.converged()) || clusters.some((c) => c.running().length < n),
      CONVERGE_TIMEOUT_MS,
      100,
    );
    const notFormed = clusters.filter((c) => !c.converged());
    if (!formed || notFormed.length > 0) {
      throw new NotFormed(
        `${label}: not converged:\n${notFormed.map((c) => `${c.contender.label}:\n${c.describe()}`).join('\n')}`,
      );
    }
    progress(
      `${label}: ${contenders.map((c) => c.label).join(', ')} converged ${((performance.now() - startedAt) / 1000).toFixed(1)} s after the first start; warming up ${s.warmupS} s`,
    );
    await sleep(s.warmupS * 1000);
    const unsettled = clusters.filter((c) => !c.converged());
    if (unsettled.length > 0) {
      throw new Error(
        `${label}: views changed during the warm-up:\n${unsettled.map((c) => `${c.contender.label}:\n${c.describe()}`).join('\n')}`,
      );
    }
    linksDown = true;
    const downs = await Promise.all(
      clusters.map(async (_, i) => {
        const atMs = performance.now();
        await network.setLink(i * n + victimIndex, 'down');
        return { atMs, commandMs: performance.now() - atMs };
      }),
    );
    const fault = (i: number, endMs: number): LinkDown => {
      const names = clusters[i]!.names;
      const victim = names[victimIndex]!;
      return { victim, atMs: downs[i]!.atMs, endMs, survivors: names.filter((x) => x !== victim) };
    };
    const known = await waitFor(
      () =>
        clusters.every(
          (c, i) => analyzeLinkDown(c.events, fault(i, Number.POSITIVE_INFINITY)).allKnowMs !== null,
        ),
      s.waitS * 1000,
    );
    await sleep(LATE_EVENTS_MS);
    const endMs = performance.now();
    const runs = clusters.map((c, i): LinkDownRun => {
      const f = fault(i, endMs);
      return {
        members: n,
        contender: c.contender.label,
        rep: rep + 1,
        victim: f.victim,
        commandMs: downs[i]!.commandMs,
        ...analyzeLinkDown(c.events, f),
      };
    });
    const said = runs.map((r) => {
      const t = (ms: number | null): string => (ms === null ? '–' : (ms / 1000).toFixed(2));
      const all = r.allKnowMs === null ? `${r.knowers}/${n - 1} know` : `all know ${t(r.allKnowMs)} s`;
      const wrong = r.falseDeaths > 0 ? `, ${r.falseDeaths} FALSE DEATHS` : '';
      return `${r.contender}: suspicion ${t(r.firstSuspicionMs)}, death ${t(r.firstDeathMs)}, ${all}${wrong}`;
    });
    progress(`${label}: link down: ${said.join('; ')}${known ? '' : ` (gave up after ${s.waitS} s)`}`);
    return runs;
  } finally {
    await Promise.all(clusters.map((c) => c.stop()));
    if (linksDown) await Promise.all(clusters.map((_, i) => network.setLink(i * n + victimIndex, 'up')));
  }
}

async function run(s: Settings, argv: readonly string[]): Promise<void> {
  const started = performance.now();
  ensurePackages();
  const memberlistAgent = buildMemberlistAgent();
  const fdkitCli = join(ensureDist(false), 'cli', 'main.js');
  const launch: Launch = { fdkitCli, memberlistAgent, lifetimeS: s.timeoutS + 60 };
  const contenders: Contender[] = [
    ...s.profiles.map((p): Contender => ({ label: `fdkit ${p}`, system: 'fdkit', profile: p })),
    MEMBERLIST,
  ];
  const source = sourceState();
  const runs: LinkDownRun[] = [];
  let port = PORT_BASE;
  for (const n of s.members) {
    progress(`n=${n}: ${contenders.length} × ${n} namespaces, ${repsAt(s, n)} repetitions`);
    const network = await LossNetwork.create(contenders.length * n, NETNS_NAME);
    try {
      for (let rep = 0; rep < repsAt(s, n); rep++) {
        for (let attempt = 1; ; attempt++) {
          try {
            runs.push(...(await repetition(s, network, contenders, launch, n, rep, port++)));
            break;
          } catch (error) {
            if (!(error instanceof NotFormed) || attempt >= FORM_ATTEMPTS) throw error;
            progress(
              `${error.message}\nstarting the repetition again (attempt ${attempt + 1} of ${FORM_ATTEMPTS})`,
            );
          }
        }
      }
    } finally {
      await network.destroy();
    }
  }
  const summaries = summarize(runs);
  const rs = ratios(summaries, MEMBERLIST.label);
  const head = {
    command: `flock /tmp/fdkit-heavy.lock npm run bench:linkdown${argv.length > 0 ? ` -- ${argv.join(' ')}` : ''}`,
    date: new Date().toISOString().slice(0, 10),
    commit: source.commit,
    changedSrcFiles: source.changedSrcFiles,
    machine: machine(),
    versions: versions(),
    settings: { ...s, reps: s.members.map((n) => repsAt(s, n)) },
    totalS: (performance.now() - started) / 1000,
  };
  const json = `${toJson(jsonReport(head, summaries, rs, runs))}\n`;
  if (s.write) {
    writeResult('linkdown.json', json);
    const file = writeResult('linkdown.md', markdown(head, summaries, rs));
    progress(`results in ${file.replace(/\.md$/, '.{json,md}')}`);
  }
  progress(`done in ${head.totalS.toFixed(0)} s`);
  process.stdout.write(s.json ? json : plainTables(summaries, rs));
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const s = settings(argv);
  // The namespaces are deleted on exit by examples/support/netns.ts itself.
  await runBounded(
    {
      name: 'bench:linkdown',
      timeoutS: s.timeoutS,
      cleanup: killEveryMember,
      onSignal: 'killing every member and deleting the namespaces',
    },
    () => run(s, argv),
  );
}

await main();
