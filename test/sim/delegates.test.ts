/**
 * Delegates in the simulator: an alive filter that keeps out a joiner whose metadata names another
 * cluster, a merge filter that keeps two clusters apart although a member of one has a seed in the
 * other, and application state (a grow-only counter per member) that push-pull spreads to every member.
 * Each case runs a control without the delegate, so that it fails if the delegate is not consulted.
 */
import { describe, expect, it } from 'vitest';
import { type SimMemberOptions, Simulation } from '../../src/sim/simulation.js';
import type { CandidateMember, SwimDelegates } from '../../src/swim/delegates.js';
import { expectOptionError } from '../support/validation.js';

const encode = (s: string): Uint8Array => new TextEncoder().encode(s);
const decode = (b: Uint8Array): string => new TextDecoder().decode(b);
const clusterOf = (m: CandidateMember): string => decode(m.meta);

/** Every member `observer` holds, by index, `alive` or otherwise, itself excluded. */
function known(sim: Simulation, observer: number, nodes: number): number[] {
  return Array.from({ length: nodes }, (_, m) => m).filter(
    (m) => m !== observer && sim.viewOf(observer, m) !== undefined,
  );
}

describe('an alive filter in the simulator', () => {
  const NODES = 8;
  const JOINER = NODES - 1;
  /** Members 0 to 6 form cluster a; the late joiner says cluster=b. */
  const run = (filter: boolean) => {
    const sim = new Simulation({
      nodes: NODES,
      seconds: 60,
      seed: 3,
      member: (i): SimMemberOptions => {
        const own = i === JOINER ? 'cluster=b' : 'cluster=a';
        const delegates: SwimDelegates = {
          // The formed members start knowing each other without metadata: only newcomers are vetted.
          filterAlive: (m) =>
            clusterOf(m) === own ? undefined : `${m.name} is in ${clusterOf(m)}, not ${own}`,
        };
        return { meta: encode(own), ...(filter ? { delegates } : {}) };
      },
    });
    sim.run();
    return sim;
  };

  it('keeps the joiner of another cluster out of every view, and counts each refusal', () => {
    const sim = run(true);
    for (let o = 0; o < JOINER; o++) expect(sim.viewOf(o, JOINER), `n${o}`).toBeUndefined();
    expect(known(sim, JOINER, NODES)).toEqual([]);
    const refused = sim.processes.slice(0, JOINER).map((p) => p.core!.counters.aliveRefused);
    expect(refused.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    // The cluster itself is whole.
    for (let o = 0; o < JOINER; o++) expect(known(sim, o, NODES)).toHaveLength(JOINER - 1);
  });

  it('without the filter, the same joiner is known to all', () => {
    const sim = run(false);
    for (let o = 0; o < JOINER; o++) expect(sim.viewOf(o, JOINER), `n${o}`).toBe('alive');
  });
});

describe('a merge filter in the simulator', () => {
  const NODES = 10;
  const clusterOfIndex = (i: number): string => (i < 5 ? 'cluster=a' : 'cluster=b');
  /**
   * Nobody starts formed: 0 to 4 join each other, 5 to 9 each other, and member 9 also has member 0 as a
   * seed, which would bridge the two.
   */
  const run = (filter: boolean) => {
    const sim = new Simulation({
      nodes: NODES,
      seconds: 90,
      seed: 5,
      formed: false,
      lateJoiner: false,
      member: (i): SimMemberOptions => {
        const own = clusterOfIndex(i);
        const peers = Array.from({ length: 5 }, (_, k) => (i < 5 ? k : k + 5)).filter((s) => s !== i);
        const delegates: SwimDelegates = {
          filterMerge: (members) => {
            const stranger = members.find((m) => clusterOf(m) !== own);
            return stranger === undefined ? undefined : `${stranger.name} is in ${clusterOf(stranger)}`;
          },
        };
        return {
          meta: encode(own),
          seeds: i === 9 ? [...peers, 0] : peers,
          ...(filter ? { delegates } : {}),
        };
      },
    });
    sim.run();
    return sim;
  };

  it('keeps two clusters apart, each whole', () => {
    const sim = run(true);
    for (let o = 0; o < NODES; o++) {
      const own = Array.from({ length: 5 }, (_, k) => (o < 5 ? k : k + 5)).filter((m) => m !== o);
      expect(known(sim, o, NODES), `n${o}`).toEqual(own);
    }
    expect(sim.processes[0]!.core!.counters.mergesRefused).toBeGreaterThan(0);
  });

  it('without the filter, the bridge merges them into one', () => {
    const sim = run(false);
    for (let o = 0; o < NODES; o++) expect(known(sim, o, NODES), `n${o}`).toHaveLength(NODES - 1);
  });
});

describe('application state in the simulator', () => {
  const NODES = 5;

  it('spreads a grow-only counter to all five members through push-pull, and not before one ran', () => {
    // Member i counts i + 1 on its own entry; a merge keeps the larger count of each entry.
    const counts: Array<Map<string, number>> = Array.from(
      { length: NODES },
      (_, i) => new Map([[`n${i}`, i + 1]]),
    );
    const joins: boolean[] = [];
    const sim = new Simulation({
      nodes: NODES,
      seconds: 60,
      seed: 9,
      lateJoiner: false,
      config: { pushPullIntervalMs: 5000 },
      member: (i) => ({
        delegates: {
          localState: () => encode(JSON.stringify([...counts[i]!])),
          mergeRemoteState: (state, join) => {
            joins.push(join);
            for (const [name, count] of JSON.parse(decode(state)) as Array<[string, number]>) {
              counts[i]!.set(name, Math.max(counts[i]!.get(name) ?? 0, count));
            }
          },
        },
      }),
    });
    sim.advanceTo(1);
    expect(counts.map((c) => c.size)).toEqual([1, 1, 1, 1, 1]);
    sim.run();
    const expected = [
      ['n0', 1],
      ['n1', 2],
      ['n2', 3],
      ['n3', 4],
      ['n4', 5],
    ];
    for (let i = 0; i < NODES; i++) expect([...counts[i]!].sort(), `n${i}`).toEqual(expected);
    // A formed cluster never joins: every exchange is a periodic one.
    expect(joins.length).toBeGreaterThan(0);
    expect(joins.every((j) => !j)).toBe(true);
  });
});

describe('the simulator’s member options, checked', () => {
  const base = { nodes: 4, seconds: 10, seed: 1 };

  it('refuses formed that is not a boolean, and member that is not a function', () => {
    const formed = expectOptionError(
      () => new Simulation({ ...base, formed: 'no' as unknown as boolean }),
      'formed',
    );
    expect(formed.message).toContain('got "no" (a string)');
    expectOptionError(
      () => new Simulation({ ...base, member: {} as unknown as () => SimMemberOptions }),
      'member',
    );
  });

  it.each([4, -1, 1.5, 2])('refuses a seed %s of member 2 that is not another member', (seed) => {
    const e = expectOptionError(
      () => new Simulation({ ...base, member: (i) => (i === 2 ? { seeds: [seed] } : {}) }),
      'member.seeds',
    );
    expect(e.message).toContain('member 2');
  });

  it('hands the core the member’s metadata, which the core checks', () => {
    const sim = new Simulation({ ...base, lateJoiner: false, member: (i) => ({ meta: encode(`m${i}`) }) });
    expect(
      sim.processes.map((p) => decode(p.core!.members().find((m) => m.name === p.core!.name)!.meta)),
    ).toEqual(['m0', 'm1', 'm2', 'm3']);
    expectOptionError(
      () => new Simulation({ ...base, member: () => ({ meta: new Uint8Array(513) }) }),
      'meta',
    );
  });
});
