/**
 * The script of `fdkit demo`: who is in the cluster, whom it kills and pauses, and how long each phase
 * may take. Every wait of the demo is bounded by one of these numbers, and together they keep the whole
 * run under a minute, so that `npm start` always ends by itself.
 */
import { type ProfileName, profiles } from '../../swim/profiles.js';
import { expectedTiming } from '../../swim/timing.js';

/** What the demo does and how long each step may take, in milliseconds. */
export interface DemoScenario {
  /** Member names, one process each; the first is the seed the others join through. */
  readonly names: readonly string[];
  /** The members' protocol profile. */
  readonly profile: ProfileName;
  /**
   * Each member's priority, which its metadata carries (`priority=N`) and every member's leader hint
   * ranks it by: the highest leads.
   */
  readonly priorities: Readonly<Record<string, number>>;
  /** The member killed with SIGKILL. */
  readonly killed: string;
  /** The member frozen with SIGSTOP and later continued with SIGCONT. */
  readonly paused: string;
  /** The paused member stays stopped at least this long... */
  readonly pauseMinMs: number;
  /** ...and, once some member suspects it, at least this much longer, for the suspicion to spread... */
  readonly suspectedForMs: number;
  /** ...but never longer than this. */
  readonly pauseMaxMs: number;
  /** How often each member reports its view of the cluster. */
  readonly statusIntervalMs: number;
  /** Bound on every member reporting its address, from the first fork. */
  readonly readyTimeoutMs: number;
  /** Bound on every member seeing every member alive, once all reported their address. */
  readonly formTimeoutMs: number;
  /** Quiet time before the first fault, to show a healthy cluster and let phi settle. */
  readonly steadyMs: number;
  /** Bound on every survivor holding the killed member dead. */
  readonly crashTimeoutMs: number;
  /** Time to look at the cluster after each fault has settled. */
  readonly lingerMs: number;
  /** Bound on the survivors' local health returning to 0 before the pause. */
  readonly healthTimeoutMs: number;
  /**
   * How long the demo watches the paused member after SIGCONT for a late death: the profile's minimum
   * suspicion timeout, the shortest time in which a suspicion can end in a death.
   */
  readonly watchAfterResumeMs: number;
  /** Bound on the paused member being held alive again by everyone, counted from SIGCONT. */
  readonly settleTimeoutMs: number;
  /** Bound on the member processes ending once the demo stops them. */
  readonly shutdownTimeoutMs: number;
}

const NAMES = ['n1', 'n2', 'n3', 'n4', 'n5'];
const TIMING = expectedTiming(profiles.lan, NAMES.length);

/**
 * The scenario of `fdkit demo`, with the `lan` profile. The pause has to be suspected and then refuted:
 * each of the three other members probes the frozen one about once every three periods, so a fixed 3 s
 * pause went unsuspected in one of six trial runs, and a longer one would come near a death. So the
 * member stays stopped 3 s, or until half a second after the first suspicion, and at most 6 s. A
 * suspicion is raised at least one probe period (1 s) after the SIGSTOP and lasts at least the minimum
 * suspicion timeout for five members (4 s), so no death can come before 5 s; and when the pause runs
 * past 3 s, the first suspicion came late and the earliest death is 3.5 s after the SIGCONT.
 *
 * The leader hints move off the killed member at its first suspicion, before it is held dead, so the
 * crash phase's bound covers them too.
 */
export const demoScenario: DemoScenario = {
  names: NAMES,
  profile: 'lan',
  // The killed member has the top priority, so the crash kills the leader; the next is the seed, not
  // the member paused later, so that the pause moves no leader.
  priorities: { n5: 5, n1: 4, n2: 3, n3: 2, n4: 1 },
  killed: 'n5',
  paused: 'n4',
  pauseMinMs: 3000,
  suspectedForMs: 500,
  pauseMaxMs: 6000,
  statusIntervalMs: 250,
  // Four Node.js processes starting at once take 1 to 4 s on a busy two-core machine.
  readyTimeoutMs: 8000,
  formTimeoutMs: 8000,
  steadyMs: 2000,
  // Typically 1 to 3 s: a killed process's port refuses connections, which convicts it early.
  crashTimeoutMs: 12_000,
  lingerMs: 1500,
  healthTimeoutMs: 4000,
  watchAfterResumeMs: TIMING.suspicionMinMs,
  settleTimeoutMs: 6000,
  shutdownTimeoutMs: 3500,
};

/** The longest the scenario can take when every bounded wait runs to its bound. */
export function worstCaseMs(s: DemoScenario): number {
  return (
    s.readyTimeoutMs +
    s.formTimeoutMs +
    s.steadyMs +
    s.crashTimeoutMs +
    s.lingerMs +
    s.healthTimeoutMs +
    s.pauseMaxMs +
    Math.max(s.watchAfterResumeMs, s.settleTimeoutMs) +
    s.lingerMs +
    s.shutdownTimeoutMs
  );
}
