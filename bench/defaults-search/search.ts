/**
 * The search for one profile, in stages: screening (the baselines and a seeded sample of the grid on the
 * screening scenarios, few seeds), refinement (one-step neighbours of the best, same scenarios and
 * seeds), and the final evaluation (the baselines and the best few on every scenario, more seeds). Runs
 * are cached by spec, so a seed a finalist ran in screening is not run again.
 */
import { Random } from '../../src/runtime/random.js';
import { PROFILE_BASE } from './base-profile.js';
import {
  type ArmSummary,
  type Comparison,
  compare,
  rank,
  type ScenarioStats,
  scenarioStats,
  summarize,
} from './evaluate.js';
import type { SearchRunRecord, SearchRunSpec } from './run.js';
import { type Scenario, type SearchProfile, type SeedPlan, scenariosOf, seedsFor } from './scenarios.js';
import { configOf, keyOf, MEMBERLIST, neighbours, type Space, sample, type Values } from './space.js';

/** A configuration under test. */
export interface Arm {
  /** `memberlist`, `fdkit-old`, or the candidate's key. */
  readonly key: string;
  readonly role: 'memberlist' | 'fdkit-old' | 'candidate';
  readonly values: Values;
  /** fdkit's toggleable extras (freeze guard, death watch). */
  readonly extras: boolean;
}

export interface ArmResult extends Arm {
  readonly stats: readonly ScenarioStats[];
  readonly comparisons: readonly Comparison[];
  readonly summary: ArmSummary;
}

export interface StageResult {
  readonly name: 'screen' | 'refine' | 'final';
  readonly seeds: SeedPlan;
  readonly scenarios: readonly string[];
  /** Ranked, best first (the baselines among them). */
  readonly arms: readonly ArmResult[];
}

/** How much of the search a profile gets. */
export interface ProfilePlan {
  /** Candidates screened beside the sample and run by the final stage whatever the screening found (`--also`). */
  readonly alsoFinal?: readonly Values[];
  readonly profile: SearchProfile;
  readonly screenSeeds: SeedPlan;
  /** Grid points sampled for screening. */
  readonly sample: number;
  /** Refinement rounds, each over the neighbours of the `refineTop` best so far. */
  readonly refineRounds: number;
  readonly refineTop: number;
  /** Candidates carried into the final evaluation, besides the best of each host-silence value. */
  readonly finalists: number;
  readonly finalSeeds: SeedPlan;
  /** Seed of the grid sample. */
  readonly sampleSeed: number;
}

/** Runs specs (through the pool and the cache) and reports each finished arm. */
export interface Runner {
  run(spec: SearchRunSpec): Promise<SearchRunRecord>;
  /** Called when an arm of a stage has all its runs. */
  armDone(profile: SearchProfile, stage: string, done: number, of: number, arm: ArmResult): void;
}

export const MEMBERLIST_ARM = 'memberlist';
export const FDKIT_OLD_ARM = 'fdkit-old';

/** The two baselines of a profile: memberlist's values with fdkit's extras off, and with them on. */
export function baselines(profile: SearchProfile): Arm[] {
  const values = MEMBERLIST[profile];
  return [
    { key: MEMBERLIST_ARM, role: 'memberlist', values, extras: false },
    { key: FDKIT_OLD_ARM, role: 'fdkit-old', values, extras: true },
  ];
}

function candidate(values: Values): Arm {
  return { key: keyOf(values), role: 'candidate', values, extras: true };
}

/** The spec of one run of `arm` in `s` with `seed`. */
export function specOf(profile: SearchProfile, arm: Arm, s: Scenario, seed: number): SearchRunSpec {
  return {
    profile: PROFILE_BASE[profile],
    config: configOf(arm.values),
    adaptive: arm.values.adaptive === 1,
    extras: arm.extras,
    nodes: s.nodes,
    seconds: s.seconds,
    seed,
    network: s.network,
    crashes: s.crashes,
    kills: s.kills,
    ...(s.slow === undefined ? {} : { slow: s.slow }),
    ...(s.pause === undefined ? {} : { pause: s.pause }),
    ...(s.oneWay === undefined ? {} : { oneWay: s.oneWay }),
  };
}

/** The scenarios a stage runs: those with at least one seed under `seeds` (and in `pick`). */
function stageScenarios(
  all: readonly Scenario[],
  seeds: SeedPlan,
  pick: (s: Scenario) => boolean,
): Scenario[] {
  return all.filter((s) => pick(s) && seedsFor(s, seeds) > 0);
}

/** Runs every arm on `scenarios` and ranks them against the memberlist arm (which must be among them). */
async function stage(
  name: StageResult['name'],
  profile: SearchProfile,
  arms: readonly Arm[],
  scenarios: readonly Scenario[],
  seeds: SeedPlan,
  runner: Runner,
): Promise<StageResult> {
  let done = 0;
  const statsOf = async (arm: Arm): Promise<ScenarioStats[]> => {
    const stats = await Promise.all(
      scenarios.map(async (s) => {
        const n = seedsFor(s, seeds);
        const runs = await Promise.all(
          Array.from({ length: n }, (_, i) => runner.run(specOf(profile, arm, s, 1 + i))),
        );
        return scenarioStats(s.key, runs);
      }),
    );
    return stats;
  };
  const memberlist = arms.find((a) => a.role === 'memberlist');
  if (memberlist === undefined) throw new Error(`stage ${name} of ${profile} has no memberlist arm`);
  const mlStats = statsOf(memberlist);
  const results = await Promise.all(
    arms.map(async (arm): Promise<ArmResult> => {
      const [stats, ml] = await Promise.all([statsOf(arm), mlStats]);
      const comparisons = stats.map((s, i) => compare(s, ml[i]!));
      const result = { ...arm, stats, comparisons, summary: summarize(stats, comparisons, scenarios, ml) };
      runner.armDone(profile, name, ++done, arms.length, result);
      return result;
    }),
  );
  return { name, seeds, scenarios: scenarios.map((s) => s.key), arms: rank(results) };
}

/** The candidates of a ranked list, best first. */
function candidates(arms: readonly ArmResult[]): ArmResult[] {
  return arms.filter((a) => a.role === 'candidate');
}

/**
 * The finalists: the `top` best of `ranked`, then the best with each host-silence value of the grid not
 * among them yet, so that the final tables show what each value costs and gains.
 */
export function pickFinalists(ranked: readonly ArmResult[], top: number, space: Space): ArmResult[] {
  const out = ranked.slice(0, top);
  for (const h of space.hostSilenceMs) {
    if (out.some((a) => a.values.hostSilenceMs === h)) continue;
    const best = ranked.find((a) => a.values.hostSilenceMs === h);
    if (best !== undefined) out.push(best);
  }
  return out;
}

/** Every stage of the search for one profile. */
export async function searchProfile(plan: ProfilePlan, space: Space, runner: Runner): Promise<StageResult[]> {
  const all = scenariosOf(plan.profile);
  const base = baselines(plan.profile);
  const seen = new Set<string>(base.map((a) => keyOf(a.values)));
  const screenSet = stageScenarios(all, plan.screenSeeds, (s) => s.screen);
  const sampled = sample(space, plan.sample, new Random(plan.sampleSeed), seen);
  // Candidates asked for by name (`--also`) are screened like the sampled ones, so that they take part in
  // the refinement and appear on the frontier chart.
  const asked = (plan.alsoFinal ?? []).filter(
    (v) => !seen.has(keyOf(v)) && !sampled.some((d) => keyOf(d) === keyOf(v)),
  );
  const drawn = [...sampled, ...asked];
  for (const v of drawn) seen.add(keyOf(v));
  const stages: StageResult[] = [];
  stages.push(
    await stage(
      'screen',
      plan.profile,
      [...base, ...drawn.map(candidate)],
      screenSet,
      plan.screenSeeds,
      runner,
    ),
  );
  for (let round = 0; round < plan.refineRounds; round++) {
    const best = rank(stages.flatMap((s) => candidates(s.arms))).slice(0, plan.refineTop);
    const next = best.flatMap((a) => neighbours(space, a.values, seen));
    for (const v of next) seen.add(keyOf(v));
    if (next.length === 0) break;
    stages.push(
      await stage(
        'refine',
        plan.profile,
        [...base, ...next.map(candidate)],
        screenSet,
        plan.screenSeeds,
        runner,
      ),
    );
  }
  const picked = pickFinalists(rank(stages.flatMap((s) => candidates(s.arms))), plan.finalists, space);
  const extra = (plan.alsoFinal ?? []).filter((v) => !picked.some((a) => keyOf(a.values) === keyOf(v)));
  const finalists = [...picked, ...extra.map(candidate)];
  const finalSet = stageScenarios(all, plan.finalSeeds, () => true);
  stages.push(
    await stage(
      'final',
      plan.profile,
      [...base, ...finalists.map((a) => candidate(a.values))],
      finalSet,
      plan.finalSeeds,
      runner,
    ),
  );
  return stages;
}

/**
 * The arm the search picks among ranked `arms`: the best candidate a profile can carry. The adaptive probe
 * timeout is a node option (`adaptiveProbeTimeout`), not a profile field, so candidates that need it are
 * reported but not picked.
 */
export function pickOf<T extends Pick<ArmResult, 'role' | 'values'>>(arms: readonly T[]): T | undefined {
  return arms.find((a) => a.role === 'candidate' && a.values.adaptive === 0);
}

/** The arm the search picks: see {@link pickOf}, over the final stage. */
export function chosen(stages: readonly StageResult[]): ArmResult | undefined {
  const final = stages.find((s) => s.name === 'final');
  return final === undefined ? undefined : pickOf(final.arms);
}
