/**
 * bench/peers/analysis.ts: detection times, false positives, medians, ratios and tables from made-up event
 * logs (the statistics and formats it shares with the other benches: test/bench/stats.test.ts), and
 * bench/peers/nft.ts's reading of nftables counters.
 */
import { describe, expect, it } from 'vitest';
import {
  analyzeBystanders,
  analyzeKill,
  analyzePause,
  comparisonCells,
  cpuRatio,
  type Fault,
  type MemberCost,
  meanCosts,
  summarizeCost,
  summarizeFaults,
  timeline,
} from '../../bench/peers/analysis.js';
import type { PeerEvent } from '../../bench/peers/events.js';
import { counterDelta, parseNftCounters } from '../../bench/peers/nft.js';
import { markdownTable } from '../../bench/support/format.js';

function ev(
  atMs: number,
  observer: string,
  kind: PeerEvent['kind'],
  member: string,
  raised = false,
): PeerEvent {
  return { atMs, observer, kind, member, raised, cause: 'test' };
}

const kill: Fault = {
  kind: 'kill',
  victim: 'e',
  atMs: 1000,
  endMs: 9000,
  survivors: ['a', 'b', 'c', 'd'],
  gone: ['x'],
};

describe('analyzeKill', () => {
  it('times the first detection, the first death and the last survivor to know, from the kill', () => {
    const events = [
      ev(500, 'a', 'suspect', 'e', true), // before the kill: not this fault's
      ev(2100, 'b', 'suspect', 'e', true),
      ev(2300, 'c', 'suspect', 'e'),
      ev(6000, 'b', 'dead', 'e'),
      ev(6050, 'a', 'dead', 'e'),
      ev(6100, 'c', 'dead', 'e'),
      ev(6400, 'd', 'dead', 'e'),
      ev(6500, 'd', 'dead', 'e'), // a repeat changes nothing
      ev(7000, 'e', 'dead', 'a'), // from the victim: not a survivor
    ];
    expect(analyzeKill(events, kill)).toEqual({
      firstDetectionMs: 1100,
      firstDeadMs: 5000,
      allKnowMs: 5400,
      knowers: 4,
      survivors: 4,
    });
  });

  it('has no all-know time while a survivor never said it, nor anything after the window', () => {
    const events = [ev(3000, 'a', 'dead', 'e'), ev(3000, 'b', 'dead', 'e'), ev(9500, 'c', 'dead', 'e')];
    const k = analyzeKill(events, kill);
    expect(k.firstDetectionMs).toBe(2000);
    expect(k.allKnowMs).toBeNull();
    expect(k.knowers).toBe(2);
  });

  it('counts a death without a suspicion first as the first detection too', () => {
    expect(analyzeKill([ev(1800, 'a', 'dead', 'e')], kill).firstDetectionMs).toBe(800);
  });
});

describe('analyzePause and analyzeBystanders', () => {
  const pause: Fault = { ...kill, kind: 'pause', victim: 'd', survivors: ['a', 'b', 'c', 'e'] };

  it('counts survivors that raised a suspicion, held one, or declared the paused member dead', () => {
    const events = [
      ev(1500, 'a', 'suspect', 'd', true),
      ev(1700, 'a', 'suspect', 'd', true), // the same survivor again
      ev(1600, 'b', 'suspect', 'd', false), // heard by gossip
      ev(5000, 'c', 'dead', 'd'),
      ev(5100, 'd', 'refute', 'd'),
    ];
    expect(analyzePause(events, pause)).toEqual({ suspicionsRaised: 1, suspectedBy: 2, falseDeaths: 1 });
  });

  it('counts accusations of untouched members, the woken victim included, never of the gone', () => {
    const events = [
      ev(4200, 'd', 'suspect', 'a', true), // the paused member wakes and accuses a
      ev(4300, 'd', 'suspect', 'a', true),
      ev(4400, 'b', 'suspect', 'c', false), // gossip: not raised
      ev(4500, 'b', 'dead', 'c'),
      ev(4600, 'a', 'dead', 'x'), // x was killed before
      ev(4700, 'a', 'suspect', 'd', true), // the victim: counted by analyzePause
      ev(9999, 'a', 'suspect', 'b', true), // after the window
    ];
    expect(analyzeBystanders(events, pause)).toEqual({ suspicionsRaised: 1, falseDeaths: 1 });
  });

  it('keeps a timeline of what was said about the victim, and of accusations of others', () => {
    const events = [
      ev(1500, 'a', 'suspect', 'd', true),
      ev(1600, 'b', 'alive', 'z'), // a join of someone else: left out
      ev(4100, 'd', 'refute', 'd'),
      ev(4200, 'd', 'suspect', 'a', true),
      ev(4300, 'a', 'alive', 'd'),
    ];
    expect(timeline(events, pause)).toEqual([
      { ms: 500, observer: 'a', kind: 'suspect', member: 'd', cause: 'test' },
      { ms: 3100, observer: 'd', kind: 'refute', member: 'd', cause: 'test' },
      { ms: 3200, observer: 'd', kind: 'suspect', member: 'a', cause: 'test' },
      { ms: 3300, observer: 'a', kind: 'alive', member: 'd', cause: 'test' },
    ]);
  });

  it('summarizes several faults: medians of times, sums of counts', () => {
    const kill2: Fault = { ...kill, victim: 'f', atMs: 20_000, endMs: 30_000, survivors: ['a'] };
    const events = [
      ev(1100, 'a', 'suspect', 'e', true),
      ev(3000, 'a', 'dead', 'e'),
      ev(3000, 'b', 'dead', 'e'),
      ev(3000, 'c', 'dead', 'e'),
      ev(3000, 'd', 'dead', 'e'),
      ev(20_300, 'a', 'suspect', 'f', true),
      ev(1500, 'a', 'suspect', 'd', true),
    ];
    const s = summarizeFaults(events, [kill, pause, kill2]);
    expect(s.firstDetectionMs).toEqual({ median: 200, min: 100, max: 300, n: 2 });
    expect(s.allKnowMs).toEqual({ median: 2000, min: 2000, max: 2000, n: 1 });
    expect(s.missed).toBe(1);
    expect(s.falseSuspicionsRaised).toBe(1);
    expect(s.falseDeaths).toBe(0);
  });
});

describe('comparisonCells', () => {
  it('lays out a comparison with fdkit over each other system', () => {
    const { header, cells } = comparisonCells(
      [
        { label: 'all know, ms', values: { fdkit: 800, serf: 5000, memberlist: 4000 } },
        { label: 'CPU %', values: { fdkit: 0.3, serf: 0.25, memberlist: null }, digits: 3 },
        { label: 'false deaths', values: { fdkit: 0, serf: 0, memberlist: 1 }, texts: { fdkit: 'none' } },
      ],
      ['fdkit', 'serf', 'memberlist'],
    );
    expect(header).toEqual(['measure', 'fdkit', 'serf', 'memberlist', 'fdkit / serf', 'fdkit / memberlist']);
    expect(cells).toEqual([
      ['all know, ms', '800', '5000', '4000', '0.16 ×', '0.20 ×'],
      ['CPU %', '0.300', '0.250', '–', '1.20 ×', '–'],
      ['false deaths', 'none', '0', '1', '0 vs 0', '0 vs 1'],
    ]);
    expect(markdownTable(['a', 'b'], [['1', '2']])).toBe('| a | b |\n| --- | --- |\n| 1 | 2 |');
  });
});

describe('summarizeCost', () => {
  const cost = (name: string, cpu: number, udp: number, tcp: number): MemberCost => ({
    name,
    cpuPercent: cpu,
    datagramsOutPerSec: 2,
    datagramsInPerSec: 2,
    udpPayloadBytesPerSec: udp - 4 * 28,
    udpIpBytesPerSec: udp,
    tcpServerBytesPerSec: tcp,
    rssMb: 10,
  });

  it('takes medians per member, and all bytes as the system total in + out per member', () => {
    const s = summarizeCost(
      [cost('a', 0.2, 300, 0), cost('b', 0.4, 300, 100), cost('c', 0.3, 300, 50)],
      true,
    );
    expect(s.cpuPercent.median).toBe(0.3);
    expect(s.udpPayloadBytesPerSec.median).toBe(188);
    // UDP: each member's in + out already; TCP: 150 B/s in all, in + out over 3 members.
    expect(s.allBytesPerSec).toBe(300 + 100);
    expect(s.tcpBytesPerSec).toBe(100);
  });

  it('reports no bytes when they were not measured', () => {
    const s = summarizeCost([cost('a', 0.2, 300, 0)], false);
    expect(s.allBytesPerSec).toBeNull();
    expect(s.datagramsOutPerSec.median).toBeNull();
    expect(s.cpuPercent.median).toBe(0.2);
  });
});

describe('idle windows: cpuRatio and meanCosts', () => {
  const cost = (name: string, cpu: number, rssMb = 10): MemberCost => ({
    name,
    cpuPercent: cpu,
    datagramsOutPerSec: 2,
    datagramsInPerSec: 2,
    udpPayloadBytesPerSec: 100,
    udpIpBytesPerSec: 156,
    tcpServerBytesPerSec: 0,
    rssMb,
  });

  it('divides the median of one system by the median of the other, not the means', () => {
    // fdkit's median is 0.2 (its mean, 0.4, is pulled up by one busy member); memberlist's 0.25.
    const costs = {
      fdkit: [cost('a', 0.1), cost('b', 0.2), cost('c', 0.9)],
      memberlist: [cost('x', 0.2), cost('y', 0.3)],
    };
    expect(cpuRatio(costs, 'fdkit', 'memberlist')).toBeCloseTo(0.8, 12);
  });

  it('has no ratio when a system has no member or uses no CPU', () => {
    expect(cpuRatio({ fdkit: [cost('a', 0.1)] }, 'fdkit', 'memberlist')).toBeNull();
    expect(
      cpuRatio({ fdkit: [cost('a', 0.1)], memberlist: [cost('x', 0)] }, 'fdkit', 'memberlist'),
    ).toBeNull();
  });

  it('averages each member over the windows it is in, and keeps its last RSS', () => {
    const merged = meanCosts([
      { fdkit: [cost('a', 0.1, 50), cost('b', 0.3, 60)], memberlist: [cost('x', 0.2)] },
      { fdkit: [cost('a', 0.3, 52)], memberlist: [cost('x', 0.4)] },
    ]);
    expect(merged.fdkit?.map((c) => [c.name, c.cpuPercent, c.rssMb])).toEqual([
      ['a', expect.closeTo(0.2, 12), 52],
      ['b', 0.3, 60],
    ]);
    expect(merged.memberlist?.map((c) => c.cpuPercent)).toEqual([expect.closeTo(0.3, 12)]);
    expect(merged.serf).toBeUndefined();
  });
});

describe('nftables counters', () => {
  it('reads per-port counters of the four sets and subtracts readings', () => {
    const json = JSON.stringify({
      nftables: [
        { metainfo: { version: '1.0.6' } },
        { table: { family: 'ip', name: 'fdkit_peers_1' } },
        {
          set: {
            family: 'ip',
            name: 'udp_in',
            table: 'fdkit_peers_1',
            type: 'inet_service',
            elem: [
              { elem: { val: 21000, counter: { packets: 3, bytes: 99 } } },
              { elem: { val: 21001, counter: { packets: 1, bytes: 40 } } },
            ],
          },
        },
        {
          set: {
            name: 'tcp_out',
            elem: [{ elem: { val: 21000, counter: { packets: 2, bytes: 120 } } }],
          },
        },
        { set: { name: 'other', elem: [{ elem: { val: 21000, counter: { packets: 9, bytes: 9 } } }] } },
        { chain: { name: 'out' } },
      ],
    });
    const c = parseNftCounters(json);
    expect(c.get(21000)).toEqual({
      udp_in: { packets: 3, bytes: 99 },
      udp_out: { packets: 0, bytes: 0 },
      tcp_in: { packets: 0, bytes: 0 },
      tcp_out: { packets: 2, bytes: 120 },
    });
    expect(c.get(21001)?.udp_in).toEqual({ packets: 1, bytes: 40 });
    const later = parseNftCounters(json.replace('"packets":3,"bytes":99', '"packets":5,"bytes":165'));
    expect(counterDelta(c.get(21000), later.get(21000)).udp_in).toEqual({ packets: 2, bytes: 66 });
    expect(counterDelta(undefined, later.get(21001)).udp_in).toEqual({ packets: 1, bytes: 40 });
  });
});
