/**
 * The pure parts of `fdkit demo` that turn what members report into measurements: the cluster view and
 * its log of observations, the phase predicates, the crash and pause measurements, the closing report,
 * the IPC message checks and the scenario's time budget. Every sequence here is scripted: no process,
 * no clock.
 */
import { describe, expect, it } from 'vitest';
import { ClusterView } from '../../src/cli/demo/cluster-view.js';
import { falseDeaths, measureCrash, measureLeaderMove, measurePause } from '../../src/cli/demo/measure.js';
import type { EventMessage, LeaderMessage, StatusMessage } from '../../src/cli/demo/messages.js';
import { parseMemberMessage } from '../../src/cli/demo/messages.js';
import {
  agreedLeader,
  backFromPause,
  describeViews,
  formed,
  healthy,
  heldDead,
  suspected,
} from '../../src/cli/demo/milestones.js';
import { reportLines } from '../../src/cli/demo/report.js';
import { demoScenario, worstCaseMs } from '../../src/cli/demo/scenario.js';
import type { MemberStateName } from '../../src/membership/member-state.js';
import { lan } from '../../src/swim/profiles.js';
import { expectedTiming } from '../../src/swim/timing.js';

const NAMES = ['n1', 'n2', 'n3', 'n4', 'n5'];

function event(
  type: EventMessage['type'],
  member: string,
  incarnation: number,
  cause: string,
  accuser?: string,
): EventMessage {
  return {
    kind: 'event',
    type,
    member,
    incarnation,
    cause,
    ...(accuser === undefined ? {} : { accuser }),
    wallMs: 0,
  };
}

/** A change of a member's leader hint. */
function leader(to: string, previous: string, epoch: number, cause = 'leader-suspect'): LeaderMessage {
  return { kind: 'leader', leader: to, previous, epoch, cause, wallMs: 0 };
}

/**
 * A status report of `observer` holding each member as `states` says (alive at inc 1 otherwise), its
 * hint naming `named` at `epoch` (n5, the top priority, at epoch 1 by default).
 */
function status(
  observer: string,
  states: Record<string, [MemberStateName, number]> = {},
  localHealth = 0,
  phi = 0.5,
  named = 'n5',
  epoch = 1,
): StatusMessage {
  return {
    kind: 'status',
    wallMs: 0,
    localHealth,
    leader: named,
    epoch,
    members: NAMES.map((name) => {
      const [state, incarnation] = states[name] ?? ['alive', 1];
      return { name, state, incarnation, phi: name === observer ? 0 : phi };
    }),
  };
}

/** Five members, each ready, each holding every other alive at incarnation 1 (joined events at 100 ms). */
function formedView(): ClusterView {
  const view = new ClusterView(NAMES);
  NAMES.forEach((n, i) => {
    view.started(n, 1000 + i);
    view.ready(n, `127.0.0.1:${40_000 + i}`);
  });
  for (const o of NAMES)
    for (const m of NAMES) if (o !== m) view.event(o, event('alive', m, 1, 'joined'), 100);
  for (const o of NAMES) view.status(o, status(o), 200, 200);
  return view;
}

/** The scripted crash of n5 at 5000 ms: n1 suspects it at +400, everyone holds it dead by +1000. */
function crash(view: ClusterView): void {
  view.fault('SIGKILL', 'n5', 5000);
  view.exited('n5');
  view.event('n1', event('suspect', 'n5', 1, 'probe-failed', 'n1'), 5400);
  view.event('n2', event('suspect', 'n5', 1, 'suspect-gossip', 'n1'), 5450);
  view.event('n3', event('suspect', 'n5', 1, 'suspect-gossip', 'n1'), 5460);
  view.event('n2', event('dead', 'n5', 1, 'suspicion-timeout', 'n2'), 5900);
  view.event('n1', event('dead', 'n5', 1, 'dead-gossip', 'n2'), 5950);
  view.event('n3', event('dead', 'n5', 1, 'dead-gossip', 'n2'), 5960);
  // n4 never suspected it: the death is its first word about n5.
  view.event('n4', event('dead', 'n5', 1, 'dead-gossip', 'n2'), 6000);
  // Each hint moves to n1 at the first suspicion or death it holds.
  view.leader('n1', leader('n1', 'n5', 2), 5400);
  view.leader('n2', leader('n1', 'n5', 2), 5450);
  view.leader('n3', leader('n1', 'n5', 2), 5460);
  view.leader('n4', leader('n1', 'n5', 2, 'leader-dead'), 6000);
}

/**
 * The scripted pause of n4 from 10,000 to 13,000 ms: n2 suspects it, n1 hears of it; both see the
 * refutation (incarnation 2) by events; n3 never suspected it and learns the new incarnation only from
 * its next status report.
 */
function pause(view: ClusterView): void {
  view.fault('SIGSTOP', 'n4', 10_000);
  view.event('n2', event('suspect', 'n4', 1, 'probe-failed', 'n2'), 11_500);
  view.event('n1', event('suspect', 'n4', 1, 'suspect-gossip', 'n2'), 11_560);
  view.fault('SIGCONT', 'n4', 13_000);
  view.event('n2', event('alive', 'n4', 2, 'refuted'), 13_020);
  view.event('n1', event('alive', 'n4', 2, 'refuted'), 13_030);
  view.status('n3', status('n3', { n4: ['alive', 2], n5: ['dead', 1] }), 13_250, 13_260);
  view.status('n4', status('n4', { n4: ['alive', 2], n5: ['dead', 1] }, 3), 13_100, 13_110);
}

describe('ClusterView', () => {
  it('logs each change of a view once, whether an event or a status report shows it first', () => {
    const view = formedView();
    expect(view.observations).toHaveLength(20);
    // A status report that shows what the events showed adds nothing.
    expect(view.status('n1', status('n1'), 300, 300)).toEqual([]);
    // One that shows a new incarnation without an event logs it, without a cause.
    const changes = view.status('n1', status('n1', { n2: ['alive', 2] }), 400, 410);
    expect(changes).toEqual([{ atMs: 400, observer: 'n1', member: 'n2', state: 'alive', incarnation: 2 }]);
    expect(view.knowledge('n1', 'n2')).toEqual({ state: 'alive', incarnation: 2, phi: 0.5 });
    expect(view.member('n1').status).toEqual({
      receivedAtMs: 410,
      localHealth: 0,
      incarnation: 1,
    });
  });

  it('ignores metadata updates and members it does not know', () => {
    const view = formedView();
    expect(view.event('n1', event('update', 'n2', 1, 'metadata'), 500)).toBeUndefined();
    expect(view.event('n1', event('alive', 'stranger', 1, 'joined'), 500)).toBeUndefined();
    expect(view.observations).toHaveLength(20);
  });

  it("keeps each member's leader from its hint's changes and status reports, logging each change once", () => {
    const view = new ClusterView(NAMES);
    expect(view.member('n2').leader).toBeUndefined();
    // The hint's first leader (epoch 0) only shows in a status report.
    view.status('n2', status('n2', {}, 0, 0.5, 'n2', 0), 100, 100);
    expect(view.member('n2')).toMatchObject({ leader: 'n2', epoch: 0 });
    expect(view.leader('n2', leader('n5', 'n2', 1, 'stable-better'), 150)).toEqual({
      atMs: 150,
      observer: 'n2',
      leader: 'n5',
      previous: 'n2',
      epoch: 1,
      cause: 'stable-better',
    });
    // A status report of the same epoch, or a repeated change, adds nothing.
    view.status('n2', status('n2'), 200, 200);
    expect(view.leader('n2', leader('n5', 'n2', 1, 'stable-better'), 250)).toBeUndefined();
    expect(view.leaderChanges).toHaveLength(1);
    expect(view.member('n2')).toMatchObject({ leader: 'n5', epoch: 1 });
  });

  it('tracks the processes: stopped and continued, killed stays killed after its exit', () => {
    const view = formedView();
    view.fault('SIGSTOP', 'n4', 1000);
    expect(view.member('n4').process).toBe('stopped');
    view.fault('SIGCONT', 'n4', 2000);
    expect(view.member('n4').process).toBe('running');
    view.fault('SIGKILL', 'n5', 3000);
    view.exited('n5');
    expect(view.member('n5').process).toBe('killed');
    view.exited('n3');
    expect(view.member('n3').process).toBe('exited');
  });
});

describe('phase predicates', () => {
  it('sees the cluster formed only when every member holds every other alive', () => {
    const view = new ClusterView(NAMES);
    for (const n of NAMES) view.ready(n, 'x');
    expect(formed(view)).toBe(false);
    for (const o of NAMES)
      for (const m of NAMES) if (o !== m && m !== 'n3') view.event(o, event('alive', m, 1, 'joined'), 1);
    expect(formed(view)).toBe(false);
    expect(describeViews(view)[0]).toBe('n1 (running): n2 alive, n3 ?, n4 alive, n5 alive');
    for (const o of NAMES) if (o !== 'n3') view.event(o, event('alive', 'n3', 1, 'joined'), 2);
    expect(formed(view)).toBe(true);
  });

  it('waits for every survivor to hold the killed member dead', () => {
    const view = formedView();
    view.fault('SIGKILL', 'n5', 5000);
    view.event('n1', event('dead', 'n5', 1, 'suspicion-timeout'), 5100);
    expect(heldDead(view, 'n5')).toBe(false);
    for (const o of ['n2', 'n3', 'n4']) view.event(o, event('dead', 'n5', 1, 'dead-gossip'), 5200);
    expect(heldDead(view, 'n5')).toBe(true);
  });

  it('sees a leader agreed only when every running member names the same running member', () => {
    const view = formedView();
    expect(agreedLeader(view)).toBe('n5');
    view.fault('SIGKILL', 'n5', 5000);
    // Everyone still names the killed member: no live leader.
    expect(agreedLeader(view)).toBeUndefined();
    view.leader('n1', leader('n1', 'n5', 2), 5400);
    view.leader('n2', leader('n1', 'n5', 2), 5400);
    view.leader('n3', leader('n1', 'n5', 2), 5400);
    expect(agreedLeader(view)).toBeUndefined();
    view.leader('n4', leader('n1', 'n5', 2), 5500);
    expect(agreedLeader(view)).toBe('n1');
    // A stopped member is not asked.
    view.fault('SIGSTOP', 'n4', 6000);
    view.leader('n4', leader('n4', 'n1', 3), 6100);
    expect(agreedLeader(view)).toBe('n1');
  });

  it('reads health from the latest status reports', () => {
    const view = formedView();
    expect(healthy(view)).toBe(true);
    view.status('n2', status('n2', {}, 2), 300, 300);
    expect(healthy(view)).toBe(false);
  });

  it('sees the paused member back only once every suspicion is refuted and it reported after SIGCONT', () => {
    const view = formedView();
    crash(view);
    view.fault('SIGSTOP', 'n4', 10_000);
    view.event('n2', event('suspect', 'n4', 1, 'probe-failed', 'n2'), 11_500);
    expect(suspected(view, 'n4')).toBe(true);
    view.fault('SIGCONT', 'n4', 13_000);
    expect(backFromPause(view, 'n4', 13_000)).toBe(false);
    view.event('n2', event('alive', 'n4', 2, 'refuted'), 13_020);
    // n1 and n3 still hold incarnation 1; n4 has not reported since it resumed.
    expect(backFromPause(view, 'n4', 13_000)).toBe(false);
    for (const o of ['n1', 'n3'])
      view.status(o, status(o, { n4: ['alive', 2], n5: ['dead', 1] }), 13_200, 13_200);
    expect(backFromPause(view, 'n4', 13_000)).toBe(false);
    view.status('n4', status('n4', { n4: ['alive', 2], n5: ['dead', 1] }), 13_100, 13_150);
    expect(backFromPause(view, 'n4', 13_000)).toBe(true);
    expect(suspected(view, 'n4')).toBe(false);
  });
});

describe('measurements', () => {
  it('measures the crash from the SIGKILL: first suspect, first dead, all survivors dead', () => {
    const view = formedView();
    crash(view);
    const c = measureCrash(view, 'n5')!;
    expect(c.survivors).toEqual(['n1', 'n2', 'n3', 'n4']);
    expect(c.firstSuspectMs).toBe(400);
    expect(c.firstDeadMs).toBe(900);
    expect([...c.deadMs]).toEqual([
      ['n2', 900],
      ['n1', 950],
      ['n3', 960],
      ['n4', 1000],
    ]);
    expect(c.allDeadMs).toBe(1000);
  });

  it('has no all-dead time while a survivor does not hold the killed member dead', () => {
    const view = formedView();
    view.fault('SIGKILL', 'n5', 5000);
    view.event('n1', event('dead', 'n5', 1, 'suspicion-timeout'), 5500);
    const c = measureCrash(view, 'n5')!;
    expect(c.allDeadMs).toBeUndefined();
    expect(c.firstSuspectMs).toBeUndefined();
    expect(reportLines(view, 'n5', 'n4')).toContain(
      '    held dead by 1 of 4 survivors (not by n2, n3 and n4)',
    );
  });

  it('measures where the leader hints went: off the killed leader, all to n1, the last 1 s after the kill', () => {
    const view = formedView();
    crash(view);
    const l = measureLeaderMove(view, 'n5')!;
    expect(l).toMatchObject({ member: 'n5', leader: 'n1', wasLeader: true, allMs: 1000 });
    expect(l.survivors).toEqual(['n1', 'n2', 'n3', 'n4']);
    expect(l.changes.map((c) => c.observer)).toEqual(['n1', 'n2', 'n3', 'n4']);
  });

  it('has no new leader while the survivors disagree, and knows when the killed member did not lead', () => {
    const view = formedView();
    view.fault('SIGKILL', 'n5', 5000);
    view.leader('n1', leader('n1', 'n5', 2), 5400);
    const split = measureLeaderMove(view, 'n5')!;
    expect(split).toMatchObject({ leader: undefined, wasLeader: false, allMs: undefined });
    expect(reportLines(view, 'n5', 'n4')).toContain(
      '    leader hint: the survivors do not agree on a leader',
    );
    const other = formedView();
    other.fault('SIGKILL', 'n3', 5000);
    expect(measureLeaderMove(other, 'n3')).toMatchObject({ leader: 'n5', wasLeader: false, allMs: 0 });
    expect(reportLines(other, 'n3', 'n4')).toContain(
      '    leader hint: n3 did not lead; every survivor names n5',
    );
  });

  it('measures the pause: suspicions, the refutation, the new incarnation everywhere, no death', () => {
    const view = formedView();
    crash(view);
    pause(view);
    const p = measurePause(view, 'n4')!;
    expect(p.observers).toEqual(['n1', 'n2', 'n3']);
    expect(p.pausedMs).toBe(3000);
    expect(p.incarnationBefore).toBe(1);
    expect(p.incarnationAfter).toBe(2);
    expect([...p.suspectMs]).toEqual([
      ['n2', 1500],
      ['n1', 1560],
    ]);
    expect([...p.refutedMs]).toEqual([
      ['n2', 3020],
      ['n1', 3030],
    ]);
    // n3 learnt incarnation 2 from its status report at 13,250.
    expect(p.allAliveMs).toBe(3250);
    expect(p.deadBy).toEqual([]);
    expect(falseDeaths(view)).toEqual([]);
  });

  it('reports a pause that ended in a death, as a false death', () => {
    const view = formedView();
    view.fault('SIGSTOP', 'n4', 10_000);
    view.event('n1', event('suspect', 'n4', 1, 'probe-failed', 'n1'), 11_000);
    view.event('n1', event('dead', 'n4', 1, 'suspicion-timeout', 'n1'), 15_000);
    view.fault('SIGCONT', 'n4', 16_000);
    view.event('n1', event('alive', 'n4', 2, 'rejoined'), 16_100);
    const p = measurePause(view, 'n4')!;
    expect(p.deadBy).toEqual(['n1']);
    expect(p.refutedMs.size).toBe(0);
    expect(falseDeaths(view)).toEqual([{ member: 'n4', by: 'n1' }]);
    const lines = reportLines(view, 'n5', 'n4');
    expect(lines).toContain('    declared dead by n1: the pause outlasted a suspicion timeout');
    expect(lines).toContain('  false deaths: n4 by n1');
  });

  it('measures nothing for faults that did not happen', () => {
    const view = formedView();
    expect(measureCrash(view, 'n5')).toBeUndefined();
    expect(measureLeaderMove(view, 'n5')).toBeUndefined();
    expect(measurePause(view, 'n4')).toBeUndefined();
  });
});

describe('report', () => {
  it('prints a timeline per fault, relative to its signal, and a summary', () => {
    const view = formedView();
    crash(view);
    pause(view);
    expect(reportLines(view, 'n5', 'n4')).toEqual([
      'Timeline of the crash (times from the SIGKILL of n5 at 5.00s)',
      '    +0.00s  SIGKILL n5 (pid 1004)',
      '    +0.40s  n1 sees n5 suspect (inc 1, probe-failed, accuser n1)',
      '    +0.40s  n1 names n1 leader (epoch 2, leader-suspect)',
      '    +0.45s  n2 sees n5 suspect (inc 1, suspect-gossip, accuser n1)',
      '    +0.45s  n2 names n1 leader (epoch 2, leader-suspect)',
      '    +0.46s  n3 sees n5 suspect (inc 1, suspect-gossip, accuser n1)',
      '    +0.46s  n3 names n1 leader (epoch 2, leader-suspect)',
      '    +0.90s  n2 sees n5 dead (inc 1, suspicion-timeout, accuser n2)',
      '    +0.95s  n1 sees n5 dead (inc 1, dead-gossip, accuser n2)',
      '    +0.96s  n3 sees n5 dead (inc 1, dead-gossip, accuser n2)',
      '    +1.00s  n4 sees n5 dead (inc 1, dead-gossip, accuser n2)',
      '    +1.00s  n4 names n1 leader (epoch 2, leader-dead)',
      '    +1.00s  every survivor (n1, n2, n3 and n4) holds n5 dead',
      '    +1.00s  every survivor (n1, n2, n3 and n4) names n1 leader',
      '',
      'Timeline of the pause (times from the SIGSTOP of n4 at 10.00s)',
      '    +0.00s  SIGSTOP n4 (pid 1003)',
      '    +1.50s  n2 sees n4 suspect (inc 1, probe-failed, accuser n2)',
      '    +1.56s  n1 sees n4 suspect (inc 1, suspect-gossip, accuser n2)',
      '    +3.00s  SIGCONT n4',
      '    +3.02s  n2 sees n4 alive (inc 2, refuted)',
      '    +3.03s  n1 sees n4 alive (inc 2, refuted)',
      '    +3.25s  n3 holds n4 alive at inc 2 (status report, no event)',
      '    +3.25s  every other member (n1, n2 and n3) holds n4 alive at inc 2',
      '',
      'Summary',
      '  crash of n5 (SIGKILL at 5.00s)',
      '    first suspected after 0.40s, first declared dead after 0.90s',
      '    held dead by all 4 survivors after 1.00s',
      '    leader hint: every survivor moved from n5 to n1 within 1.00s',
      '  pause of n4 (SIGSTOP for 3.00s at 10.00s)',
      '    suspected by n2 and n1, first after 1.50s',
      '    refuted 0.02s after SIGCONT, incarnation 1 -> 2',
      '    held alive at incarnation 2 by all 3 others 0.25s after SIGCONT',
      '    declared dead by nobody',
      '  false deaths: none (no member that was not killed was ever held dead)',
    ]);
  });

  it('says so when the paused member was never suspected', () => {
    const view = formedView();
    view.fault('SIGSTOP', 'n4', 10_000);
    view.fault('SIGCONT', 'n4', 13_000);
    const lines = reportLines(view, 'n5', 'n4');
    expect(lines).toContain('    not suspected: no probe of it failed while it was stopped');
    expect(lines).toContain('    held alive at incarnation 1 by all 4 others 0.00s after SIGCONT');
    expect(lines.some((l) => l.includes('refuted'))).toBe(false);
  });
});

describe('IPC messages', () => {
  it('accepts what members send', () => {
    const messages = [
      { kind: 'ready', address: '127.0.0.1:4000' },
      event('suspect', 'n2', 3, 'probe-failed', 'n1'),
      event('alive', 'n2', 3, 'joined'),
      leader('n1', 'n5', 4),
      {
        ...status('n1'),
        members: [{ name: 'n2', state: 'dead', incarnation: 1, phi: Number.POSITIVE_INFINITY }],
      },
    ];
    for (const m of messages) expect(parseMemberMessage(m)).toBe(m);
  });

  it.each([
    ['not an object', 'ready'],
    ['null', null],
    ['an unknown kind', { kind: 'hello' }],
    ['a ready without address', { kind: 'ready' }],
    ['an event of an unknown type', { ...event('alive', 'n2', 1, 'joined'), type: 'zombie' }],
    ['a negative incarnation', event('alive', 'n2', -1, 'joined')],
    ['a fractional incarnation', event('alive', 'n2', 1.5, 'joined')],
    ['an accuser that is not a string', { ...event('alive', 'n2', 1, 'joined'), accuser: 3 }],
    ['a time that is NaN', { ...event('alive', 'n2', 1, 'joined'), wallMs: Number.NaN }],
    ['a status whose members are not a list', { ...status('n1'), members: {} }],
    [
      'a negative phi',
      { ...status('n1'), members: [{ name: 'n2', state: 'alive', incarnation: 1, phi: -1 }] },
    ],
    [
      'an unknown state',
      { ...status('n1'), members: [{ name: 'n2', state: 'zombie', incarnation: 1, phi: 0 }] },
    ],
    ['a negative health', { ...status('n1'), localHealth: -1 }],
    ['a status without a leader', { ...status('n1'), leader: undefined }],
    ['a status with a fractional epoch', { ...status('n1'), epoch: 0.5 }],
    ['a leader change without its previous leader', { ...leader('n1', 'n5', 1), previous: 7 }],
    ['a leader change with a negative epoch', leader('n1', 'n5', -1)],
  ])('rejects %s', (_what, value) => {
    expect(parseMemberMessage(value)).toBeUndefined();
  });
});

describe('scenario', () => {
  const timing = expectedTiming(lan, demoScenario.names.length);

  it('ends within 60 s even when every bounded wait runs to its bound', () => {
    expect(worstCaseMs(demoScenario)).toBeLessThan(60_000);
  });

  it('kills and pauses two different members that are not the seed', () => {
    const [seed] = demoScenario.names;
    expect(demoScenario.names).toContain(demoScenario.killed);
    expect(demoScenario.names).toContain(demoScenario.paused);
    expect(new Set([seed, demoScenario.killed, demoScenario.paused]).size).toBe(3);
  });

  it('kills the leader: the top priority; the next one is neither the paused member nor the killed one', () => {
    const p = demoScenario.priorities;
    const ranked = [...demoScenario.names].sort((a, b) => p[b]! - p[a]!);
    expect(new Set(demoScenario.names.map((n) => p[n])).size).toBe(demoScenario.names.length);
    expect(ranked[0]).toBe(demoScenario.killed);
    expect(ranked[1]).not.toBe(demoScenario.paused);
  });

  it('continues the paused member well before any suspicion of it could end in a death', () => {
    // A suspicion starts one probe period after the SIGSTOP at the earliest, and lasts at least the
    // minimum suspicion timeout; the pause ends at its minimum, or half a second after the first one.
    expect(demoScenario.pauseMinMs).toBeLessThan(lan.probeIntervalMs + timing.suspicionMinMs - 1000);
    expect(demoScenario.suspectedForMs).toBeLessThan(timing.suspicionMinMs - 1000);
    // And it watches for at least the minimum suspicion timeout after the SIGCONT.
    expect(demoScenario.watchAfterResumeMs).toBe(timing.suspicionMinMs);
  });
});
