/**
 * The simulator search for new default profiles (issue 19): for `lan`, `wan` and `local`, the
 * configuration under which every live member knows a crashed host dead soonest, with no healthy,
 * paused or cut-off member declared dead, no more false suspicions than memberlist's defaults and at
 * most 1.5× their messages per member, in every scenario of a fixed set (`scenarios.ts`), on the same
 * seeds. Candidates come from a grid (`space.ts`): a seeded sample screened on the hard scenarios with
 * few seeds, one-step neighbours of the best, then the best few and the baselines on every scenario
 * with more seeds (`search.ts`). Baselines: memberlist's defaults with fdkit's extras off, and with
 * them on (fdkit before this issue).
 *
 * Usage: `npm run bench:defaults --` or `npx tsx bench/defaults-search/main.ts [--quick] [--profile
 * lan|wan|local] [--jobs N] [--json]`. Progress on stderr (a line per finished configuration, with an
 * ETA), a summary on stdout (the JSON with `--json`); results in `bench/results/defaults-search.json`
 * and `.md`, the frontier charts in `docs/defaults-search-frontier.svg` (lan) and `-wan.svg`,
 * `-local.svg`. A `--quick` run (about two minutes) writes `bench/results/defaults-search-quick.*`
 * and its charts beside them instead. Simulations run in `--jobs` worker processes (default 2, or fewer
 * cores); results depend only on the seeds. Run the full search under `flock /tmp/fdkit-heavy.lock`.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { ROOT, sourceState } from '../support/dist.js';
import { benchFlags, listFlag, numberFlag, stringFlag, usageError } from '../support/flags.js';
import { formatNumber, formatTable } from '../support/format.js';
import { progress, writeResult } from '../support/report.js';
import { HAS_HOST_SILENCE, PROFILE_BASE } from './base-profile.js';
import { type FrontierPoint, frontierChart } from './chart.js';
import { LOAD_BOUND } from './evaluate.js';
import { duration, markdown, type Output, outputJson, type ProfileOutput, parseOutput } from './report.js';
import { SearchPool, type SearchRunRecord, type SearchRunSpec, serveSearchRuns } from './run.js';
import { type SearchProfile, scenariosOf, seedsFor } from './scenarios.js';
import { chosen, type ProfilePlan, type Runner, type StageResult, searchProfile } from './search.js';
import { keyOf, parseKey, spaceOf, type Values } from './space.js';

const USAGE =
  'usage: tsx bench/defaults-search/main.ts [--quick] [--profile lan|wan|local] [--also PROFILE=KEY ...] [--jobs N] [--json]';

const FULL: readonly ProfilePlan[] = [
  {
    profile: 'lan',
    screenSeeds: { small: 3, n100: 2, n1000: 0 },
    sample: 70,
    refineRounds: 2,
    refineTop: 2,
    finalists: 3,
    finalSeeds: { small: 10, n100: 6, n1000: 2 },
    sampleSeed: 19,
  },
  {
    profile: 'wan',
    screenSeeds: { small: 2, n100: 1, n1000: 0 },
    sample: 40,
    refineRounds: 1,
    refineTop: 3,
    finalists: 3,
    finalSeeds: { small: 6, n100: 3, n1000: 0 },
    sampleSeed: 19,
  },
  {
    profile: 'local',
    screenSeeds: { small: 3, n100: 0, n1000: 0 },
    sample: 50,
    refineRounds: 1,
    refineTop: 3,
    finalists: 3,
    finalSeeds: { small: 10, n100: 0, n1000: 0 },
    sampleSeed: 19,
  },
];

const QUICK: readonly ProfilePlan[] = FULL.map((p) => ({
  ...p,
  screenSeeds: { small: 1, n100: p.profile === 'lan' ? 1 : 0, n1000: 0 },
  sample: 4,
  refineRounds: 1,
  refineTop: 1,
  finalists: 1,
  finalSeeds: { small: 2, n100: 1, n1000: 0 },
}));

interface Settings {
  readonly quick: boolean;
  readonly plans: readonly ProfilePlan[];
  readonly json: boolean;
  readonly jobs: number;
  readonly worker: boolean;
  /** Writes the report and charts again from the last results JSON, without running anything. */
  readonly render: boolean;
}

function settings(argv: readonly string[]): Settings {
  const f = benchFlags('bench/defaults-search/main.ts', USAGE, argv, {
    quick: { kind: 'boolean' },
    profile: { kind: 'string' },
    jobs: { kind: 'integer', min: 1, max: 64 },
    json: { kind: 'boolean' },
    worker: { kind: 'boolean' },
    render: { kind: 'boolean' },
    also: { kind: 'list' },
  });
  const quick = f.has('quick');
  const only = stringFlag(f, 'profile');
  if (only !== undefined && only !== 'lan' && only !== 'wan' && only !== 'local') {
    usageError(`--profile: lan, wan or local, got '${only}'`, USAGE);
  }
  // --also lan=KEY: a candidate the final stage of that profile runs whatever the screening found.
  const also = new Map<string, Values[]>();
  for (const item of listFlag(f, 'also')) {
    const [profile, key] = item.split('=', 2);
    const values = key === undefined ? undefined : parseKey(key);
    if (values === undefined || (profile !== 'lan' && profile !== 'wan' && profile !== 'local')) {
      usageError(`--also: PROFILE=KEY, as 'lan=p1000 t200 m5 x6 i3 a0 g200n4 h1000', got '${item}'`, USAGE);
    }
    also.set(profile, [...(also.get(profile) ?? []), values]);
  }
  const plans = (quick ? QUICK : FULL)
    .filter((p) => only === undefined || p.profile === only)
    .map((p) => {
      const extra = also.get(p.profile);
      return extra === undefined ? p : { ...p, alsoFinal: extra };
    });
  return {
    quick,
    plans,
    json: f.has('json'),
    jobs: numberFlag(f, 'jobs', Math.min(2, availableParallelism())),
    worker: f.has('worker'),
    render: f.has('render'),
  };
}

/**
 * A rough cost of a run, for the ETA: member-seconds of probing, more under loss (more indirect
 * probes, more suspicions to spread) and superlinear in n (every suspicion reaches every member).
 */
function costOf(spec: SearchRunSpec): number {
  const interval = spec.config.probeIntervalMs ?? 1000;
  const loss = (spec.network.loss ?? 0) + (spec.network.burstEnter ?? 0) * 5;
  return spec.nodes ** 1.2 * spec.seconds * (1000 / interval) * (1 + 6 * loss);
}

/** Upper bound of the runs of a plan (refinement at its largest), priced at memberlist's probe interval. */
function plannedCost(plan: ProfilePlan): number {
  const scenarios = scenariosOf(plan.profile);
  const price = (seeds: ProfilePlan['screenSeeds'], pick: (screen: boolean) => boolean): number =>
    scenarios
      .filter((s) => pick(s.screen))
      .reduce((a, s) => {
        const loss = (s.network.loss ?? 0) + (s.network.burstEnter ?? 0) * 5;
        return a + seedsFor(s, seeds) * s.nodes ** 1.2 * s.seconds * (1 + 6 * loss);
      }, 0);
  const screenArms = 2 + plan.sample + plan.refineRounds * plan.refineTop * 10;
  return (
    screenArms * price(plan.screenSeeds, (screen) => screen) +
    (2 + plan.finalists + spaceOf(plan.profile, HAS_HOST_SILENCE).hostSilenceMs.length) *
      price(plan.finalSeeds, () => true)
  );
}

/** Runs through the pool once per distinct spec, and prints a progress line per finished arm. */
class CachedRunner implements Runner {
  private readonly cache = new Map<string, Promise<SearchRunRecord>>();
  private doneCost = 0;
  private readonly started = performance.now();

  constructor(
    private readonly pool: SearchPool,
    private remainingCost: number,
  ) {}

  run(spec: SearchRunSpec): Promise<SearchRunRecord> {
    const key = JSON.stringify(spec);
    let p = this.cache.get(key);
    if (p === undefined) {
      const cost = costOf(spec);
      p = this.pool.run(spec).then((r) => {
        if (r === undefined) throw new Error('the pool skipped a run');
        this.doneCost += cost;
        this.remainingCost = Math.max(0, this.remainingCost - cost);
        return r;
      });
      this.cache.set(key, p);
    }
    return p;
  }

  /** Lowers the planned cost when a stage turns out smaller than planned (a profile is done). */
  settle(remaining: number): void {
    this.remainingCost = remaining;
  }

  armDone(
    profile: SearchProfile,
    stage: string,
    done: number,
    of: number,
    arm: StageResult['arms'][number],
  ): void {
    const elapsed = performance.now() - this.started;
    const eta = this.doneCost > 0 ? (elapsed * this.remainingCost) / this.doneCost : Number.NaN;
    const s = arm.summary;
    const verdict = s.feasible ? 'feasible' : `${s.violations.length} violations`;
    progress(
      `defaults-search: ${profile} ${stage} ${done}/${of} ${arm.key}: ${verdict}, all-know × memberlist ${formatNumber(s.gateGeomeanRatio)} (worst ${formatNumber(s.gateWorstRatio)}); ${duration(elapsed)} elapsed, ETA ${Number.isNaN(eta) ? '?' : duration(eta)}`,
    );
  }
}

/** Writes `docs/<name>` through a temporary file and a rename. */
function writeDoc(name: string, text: string): string {
  const dir = `${ROOT}docs/`;
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}${name}.tmp`, text);
  renameSync(`${dir}${name}.tmp`, `${dir}${name}`);
  return `${dir}${name}`;
}

/** The frontier chart of one profile, from its screening stages (every candidate on the same seeds). */
function chartOf(p: ProfileOutput): string | undefined {
  const screened = p.stages.filter((s) => s.name !== 'final');
  if (screened.length === 0) return undefined;
  const sizes = p.scenarios.filter((s) => s.screen).map((s) => s.nodes);
  const size = sizes.includes(100) ? 100 : Math.max(...sizes.filter((n) => n <= 100));
  const points: FrontierPoint[] = [];
  const seen = new Set<string>();
  for (const a of screened.flatMap((s) => s.arms)) {
    if (seen.has(a.key)) continue;
    seen.add(a.key);
    const stats = a.stats.filter((st) => p.scenarios.find((s) => s.key === st.scenario)?.nodes === size);
    const allKnow = stats.flatMap((st) => st.allKnowMs).map((v) => v ?? Number.POSITIVE_INFINITY);
    allKnow.sort((x, y) => x - y);
    const mid = allKnow.length / 2;
    const median =
      allKnow.length === 0
        ? Number.NaN
        : allKnow.length % 2 === 1
          ? allKnow[Math.floor(mid)]!
          : (allKnow[mid - 1]! + allKnow[mid]!) / 2;
    points.push({
      key: a.key,
      x: stats.reduce((sum, st) => sum + st.falseSuspicions, 0),
      y: median / 1000,
      verdict: a.summary.feasible ? 'feasible' : a.summary.hardViolations === 0 ? 'soft' : 'hard',
      role: a.role === 'candidate' ? (a.key === p.chosen ? 'new' : 'candidate') : a.role,
    });
  }
  const screen = screened[0]!;
  const n = p.scenarios.filter((s) => s.screen && s.nodes === size);
  return frontierChart({
    title: `Defaults search, ${p.profile}: host-crash all-know time against false suspicions (n = ${size})`,
    xLabel: `false suspicions over the ${n.length} screening scenarios at n = ${size} (every member's view counts)`,
    yLabel: `all members know a crashed host dead: median (s)`,
    points,
    note: `${points.length - 2} candidates and the two baselines on the screening scenarios, ${seedsFor(n[0]!, screen.seeds)} seed(s) each at n = ${size}; a verdict covers every screening scenario (all sizes); fdkit defaults-search`,
  });
}

/** The results' base name in bench/results/: a quick run's beside the full run's. */
function resultName(quick: boolean): string {
  return quick ? 'defaults-search-quick' : 'defaults-search';
}

/** Writes the markdown report and the frontier charts of `output`. */
function writeReports(output: Output): void {
  const quick = output.mode === 'quick';
  const name = resultName(quick);
  writeResult(`${name}.md`, markdown(output));
  for (const p of output.profiles) {
    const svg = chartOf(p);
    if (svg === undefined) continue;
    const suffix = p.profile === 'lan' ? '' : `-${p.profile}`;
    if (quick) writeResult(`${name}-frontier${suffix}.svg`, svg);
    else writeDoc(`defaults-search-frontier${suffix}.svg`, svg);
  }
}

async function main(): Promise<void> {
  const s = settings(process.argv.slice(2));
  if (s.worker) {
    serveSearchRuns();
    return;
  }
  if (s.render) {
    const file = `${ROOT}bench/results/${resultName(s.quick)}.json`;
    writeReports(parseOutput(readFileSync(file, 'utf8')));
    progress(`defaults-search: the report and charts of ${file} written again`);
    return;
  }
  if (s.plans.length === 0) usageError('no profile to search', USAGE);
  const started = performance.now();
  const pool = new SearchPool(s.jobs, fileURLToPath(import.meta.url));
  const planned = s.plans.map(plannedCost);
  const runner = new CachedRunner(
    pool,
    planned.reduce((a, b) => a + b, 0),
  );
  progress(
    `defaults-search (${s.quick ? 'quick' : 'full'}): ${s.plans.map((p) => p.profile).join(', ')}; ${s.jobs} at a time; host silence in the engine: ${HAS_HOST_SILENCE ? 'yes' : 'no'}`,
  );
  const profiles: ProfileOutput[] = [];
  for (const [i, plan] of s.plans.entries()) {
    const space = spaceOf(plan.profile, HAS_HOST_SILENCE);
    const stages = await searchProfile(plan, space, runner);
    runner.settle(planned.slice(i + 1).reduce((a, b) => a + b, 0));
    profiles.push({
      profile: plan.profile,
      baseProfile: PROFILE_BASE[plan.profile],
      plan,
      space,
      scenarios: scenariosOf(plan.profile),
      chosen: chosen(stages)?.key ?? null,
      stages,
    });
  }
  pool.close();
  const output: Output = {
    benchmark: 'fdkit defaults search (simulator, issue 19)',
    date: new Date().toISOString(),
    mode: s.quick ? 'quick' : 'full',
    command: `npm run bench:defaults --${s.quick ? ' --quick' : ''}${s.plans.length === 1 ? ` --profile ${s.plans[0]!.profile}` : ''}${s.plans
      .flatMap((p) => (p.alsoFinal ?? []).map((v) => ` --also '${p.profile}=${keyOf(v)}'`))
      .join('')}`,
    source: sourceState(),
    engine: { hostSilence: HAS_HOST_SILENCE },
    loadBound: LOAD_BOUND,
    profiles,
    durationMs: Math.round(performance.now() - started),
  };
  const json = outputJson(output);
  const file = writeResult(`${resultName(s.quick)}.json`, json);
  writeReports(output);
  progress(`defaults-search: done in ${duration(output.durationMs)}; ${file} and ${resultName(s.quick)}.md`);
  if (s.json) {
    process.stdout.write(json);
    return;
  }
  const rows = profiles.flatMap((p) => {
    const final = p.stages.find((st) => st.name === 'final');
    return (final?.arms ?? []).map((a) => [
      p.profile,
      a.role === 'candidate' ? (a.key === p.chosen ? `${a.key} (new)` : a.key) : a.key,
      a.summary.feasible ? 'yes' : String(a.summary.violations.length),
      formatNumber(a.summary.gateGeomeanRatio),
      formatNumber(a.summary.gateWorstRatio),
    ]);
  });
  process.stdout.write(
    `${formatTable(['profile', 'configuration', 'feasible', 'all-know × memberlist', 'worst'], rows, new Set([0, 1]))}\n`,
  );
}

await main();
