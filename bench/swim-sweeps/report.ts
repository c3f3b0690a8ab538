/** What the sweeps write: the JSON summary's shape, the markdown report with its tables, and the stdout table. */
import { fixedDigits, formatSpread, markdownTable, formatTable as table } from '../support/format.js';
import { machine } from '../support/report.js';
import type { Spread } from '../support/stats.js';
import type { LifeguardRatios, LifeguardSummary, PointResult } from './analysis.js';
import {
  BURST_EXIT,
  BURST_LOSS,
  HOST_CRASHES,
  KILLS,
  type LifeguardKey,
  SIZE_LOSS,
  SLOW_FROM_MS,
  type SweepName,
} from './sweeps.js';

const s1 = (x: Spread): string => formatSpread(x, fixedDigits(1, 1000));
const n0 = (x: Spread): string => formatSpread(x, fixedDigits(0));

function sweepTable(points: readonly PointResult[]): string {
  const header = [
    'point',
    'crash: first suspect (s)',
    'crash: first dead (s)',
    'crash: all know dead (s)',
    'kill: first dead (s)',
    'kill: all know dead (s)',
    'missed',
    'false suspicions raised / run',
    'false suspicions (all views) / run',
    'false deaths / run',
    'msgs / member / s',
  ];
  const rows = points.map((p) => [
    p.label,
    s1(p.crash.firstSuspectMs),
    s1(p.crash.firstDeadMs),
    s1(p.crash.allKnowDeadMs),
    s1(p.kill.firstDeadMs),
    s1(p.kill.allKnowDeadMs),
    String(p.crash.missed + p.kill.missed),
    n0(p.falseAccusations),
    n0(p.falseSuspicions),
    n0(p.falseDeaths),
    formatSpread(p.msgsPerNodePerSec, fixedDigits(2)),
  ]);
  return markdownTable(header, rows);
}

function lifeguardTable(r: LifeguardSummary): string {
  const header = [
    'configuration',
    'false suspicions of healthy members',
    'false deaths of healthy members (in the slow member’s view / in healthy views)',
    'first-hand accusations by the slow member',
    'suspicions / deaths of the slow member',
    'crash: first dead (s)',
    'crash: all healthy know dead (s)',
    'kill: first dead (s)',
    'missed: by anyone / by a healthy member',
    'datagrams dropped at full socket buffers',
  ];
  const rows = r.modes.map((m) => {
    const fp = m.falsePositives;
    return [
      m.label,
      `${fp.healthySuspicions.total} (${n0(fp.healthySuspicions.perRun)} a run)`,
      `${fp.healthyDeaths.total} (${fp.healthyDeathsAtSlow.total} / ${fp.healthyDeathsAtHealthy.total})`,
      String(fp.accusationsBySlow.total),
      `${fp.slowSuspicions.total} / ${fp.slowDeaths.total}`,
      s1(m.crash.firstDeadMs),
      s1(m.crash.healthyKnowDeadMs),
      s1(m.kill.firstDeadMs),
      `${m.crash.missed + m.kill.missed} / ${m.crash.missedByHealthy + m.kill.missedByHealthy}`,
      `${m.socketBufferDrops.total} (${n0(m.socketBufferDrops.perRun)} a run)`,
    ];
  });
  return markdownTable(header, rows);
}

function ratioLines(r: LifeguardRatios): string[] {
  return [
    `- Lifeguard alone (extras off in both): false suspicions of healthy members ${r.lifeguard.suspicions.text} (${r.lifeguard.suspicions.off} → ${r.lifeguard.suspicions.on}), false deaths ${r.lifeguard.deaths.text} (${r.lifeguard.deaths.off} → ${r.lifeguard.deaths.on})`,
    `- Lifeguard with fdkit's extras on in both: suspicions ${r.withExtras.suspicions.text} (${r.withExtras.suspicions.off} → ${r.withExtras.suspicions.on}), deaths ${r.withExtras.deaths.text} (${r.withExtras.deaths.off} → ${r.withExtras.deaths.on})`,
    `- Everything off against fdkit as shipped: suspicions ${r.all.suspicions.text} (${r.all.suspicions.off} → ${r.all.suspicions.on}), deaths ${r.all.deaths.text} (${r.all.deaths.off} → ${r.all.deaths.on})`,
  ];
}

function variantsTable(results: readonly LifeguardSummary[]): string {
  const header = [
    'scenario',
    'seeds',
    'false suspicions of healthy: off → on (ratio)',
    'false deaths of healthy: off → on (ratio)',
    'as shipped: suspicions / deaths',
    'crash all healthy know dead (s): off / on',
  ];
  const rows = results.map((r) => {
    const get = (k: LifeguardKey) => r.modes.find((m) => m.mode === k)!;
    const off = get('off-bare');
    const on = get('on-bare');
    const shipped = get('shipped');
    return [
      r.scenario.label,
      String(r.scenario.seeds),
      `${r.ratios.lifeguard.suspicions.off} → ${r.ratios.lifeguard.suspicions.on} (${r.ratios.lifeguard.suspicions.text})`,
      `${r.ratios.lifeguard.deaths.off} → ${r.ratios.lifeguard.deaths.on} (${r.ratios.lifeguard.deaths.text})`,
      `${shipped.falsePositives.healthySuspicions.total} / ${shipped.falsePositives.healthyDeaths.total}`,
      `${s1(off.crash.healthyKnowDeadMs)} / ${s1(on.crash.healthyKnowDeadMs)}`,
    ];
  });
  return markdownTable(header, rows);
}

export interface Output {
  readonly benchmark: string;
  readonly date: string;
  readonly mode: string;
  readonly seconds: number;
  readonly seeds: number;
  readonly crashesPerRun: { readonly hostCrashes: number; readonly kills: number };
  readonly baseLoss: number;
  readonly sizeLoss: number;
  readonly burst: { readonly exit: number; readonly loss: number };
  readonly source: { readonly commit: string; readonly changedSrcFiles: number };
  readonly sweeps: readonly Omit<PointResult, 'runs'>[];
  readonly lifeguard: readonly LifeguardSummary[];
  readonly skipped: readonly string[];
  readonly charts: readonly string[];
  readonly durationMs: number;
  /** Where the per-seed records are. */
  readonly runsFile: string;
}

export function markdown(o: Output, chartFile: (chart: string) => string | undefined): string {
  const lines: string[] = [];
  const m = machine();
  lines.push(
    '# SWIM sweeps and Lifeguard on/off in the simulator',
    '',
    `\`npx tsx bench/swim-sweeps/main.ts${o.mode === 'quick' ? ' --quick' : ''}\` (${o.mode} mode${o.mode === 'quick' ? ': few seeds, rough numbers; run without --quick for the full sweeps' : ''}) on ${m.cpuCount} × ${m.cpu}, Node ${m.node}, ${o.date.slice(0, 10)}, commit ${o.source.commit}${o.source.changedSrcFiles > 0 ? ` (+${o.source.changedSrcFiles} changed src files)` : ''}; ${(o.durationMs / 1000).toFixed(0)} s.`,
    'Virtual-time results: they depend only on the seeds, not on the machine.',
    '',
  );
  const main = o.lifeguard.find((r) => r.scenario.key === 'main');
  if (main !== undefined) {
    lines.push(
      '## Lifeguard on against off, one CPU-starved member',
      '',
      `The slow member: every piece of its work (a timer or a packet) takes an exponential time of mean ${main.scenario.meanMs} ms, one at a time, and timers that came due run before the packets waiting, as Node's event loop runs its timers phase before it polls sockets (\`slowCpus\` with \`timersFirst\`). Its probes then time out with their acks unread, and it suspects healthy members: Lifeguard's slow member. With the simulator's default slow CPU (all work in arrival order) an ack is always handled before the timeout it beat, so the slow member accuses nobody (the last variant below).`,
      '',
      `${main.scenario.label}; ${main.scenario.seeds} seeds of ${main.seconds} s, the slow CPU from ${SLOW_FROM_MS / 1000} s to the end; each run also crashes ${HOST_CRASHES} hosts and kills ${KILLS} processes (never the slow member) to time detection. Counts are totals over the seeds, as events (one member's transition: a suspicion that reaches 99 members counts 99).`,
      '',
      lifeguardTable(main),
      '',
      'Off/on ratios of false positives about healthy members (totals over the seeds; when "on" has none, the ratio is given as at least off/1):',
      '',
      ...ratioLines(main.ratios),
      '',
    );
    const lifeguardChart = chartFile('lifeguard');
    if (lifeguardChart !== undefined) lines.push(`![Lifeguard on/off](${lifeguardChart})`, '');
    const variants = o.lifeguard.filter((r) => r.scenario.key !== 'main');
    if (variants.length > 0) {
      lines.push(
        '### Variants (Lifeguard alone: off and on with fdkit’s extras off)',
        '',
        variantsTable([main, ...variants]),
        '',
      );
    }
  }
  const sections: [SweepName, string][] = [
    ['probe-interval', 'Probe interval (timeout = interval / 2), 100 members, 10 % independent loss'],
    ['suspicion-mult', 'suspicionMult, 100 members, 10 % independent loss'],
    ['loss', 'Independent loss, 100 members'],
    [
      'bursty-loss',
      `Bursty loss (Gilbert-Elliott per sender: bursts of ${1 / BURST_EXIT} packets on average, ${BURST_LOSS * 100} % lost in a burst; the rate is the average), 100 members`,
    ],
    ['cluster-size', `Cluster size, ${SIZE_LOSS * 100} % independent loss`],
  ];
  const files: Record<SweepName, string> = {
    'probe-interval': 'probe-interval',
    'suspicion-mult': 'suspicion-mult',
    loss: 'loss-detection',
    'bursty-loss': 'loss-fp',
    'cluster-size': 'cluster-size',
  };
  if (o.sweeps.length > 0) {
    lines.push(
      '## Sweeps',
      '',
      `Every point: ${o.seeds} seeds × ${o.seconds} s, each with ${HOST_CRASHES} host crashes (nothing answers) and ${KILLS} kills on live hosts (connections refused; fdkit's death watch applies) drawn from the seed in the first third of the run. Detection: median (min–max) over all crashes of that kind; "all know dead" is the time until the last live member held it dead. False positives, median (min–max) per run, about members whose process was up: suspicions raised (a member's own probe failed: one false-suspicion episode each), suspicions in all views (each episode counted once per member it reached, as \`fdkit sim\` counts), and deaths.`,
      '',
    );
    for (const [sweep, title] of sections) {
      const ps = o.sweeps.filter((p) => p.sweep === sweep) as PointResult[];
      if (ps.length === 0) continue;
      lines.push(`### ${title}`, '', sweepTable(ps), '');
      const chart = chartFile(files[sweep]);
      if (chart !== undefined) lines.push(`![${title}](${chart})`, '');
    }
  }
  if (o.skipped.length > 0) lines.push('## Skipped (time limit)', '', ...o.skipped.map((s) => `- ${s}`), '');
  return `${lines.join('\n')}\n`;
}

export function stdoutTable(o: Output): string {
  const parts: string[] = [];
  for (const r of o.lifeguard) {
    parts.push(
      `Lifeguard: ${r.scenario.label}, ${r.scenario.seeds} seeds`,
      table(
        [
          'configuration',
          'healthy susp.',
          'healthy deaths',
          'slow accusations',
          'crash first dead s',
          'buffer drops',
        ],
        r.modes.map((m) => [
          m.label,
          String(m.falsePositives.healthySuspicions.total),
          String(m.falsePositives.healthyDeaths.total),
          String(m.falsePositives.accusationsBySlow.total),
          s1(m.crash.firstDeadMs),
          String(m.socketBufferDrops.total),
        ]),
      ),
      `ratio off/on (extras off): suspicions ${r.ratios.lifeguard.suspicions.text}, deaths ${r.ratios.lifeguard.deaths.text}`,
      '',
    );
  }
  if (o.sweeps.length > 0) {
    parts.push(
      `Sweeps: ${o.seeds} seeds × ${o.seconds} s each`,
      table(
        [
          'point',
          'crash first dead s',
          'crash all know s',
          'kill all know s',
          'false susp./run',
          'false deaths/run',
        ],
        (o.sweeps as PointResult[]).map((p) => [
          p.label,
          s1(p.crash.firstDeadMs),
          s1(p.crash.allKnowDeadMs),
          s1(p.kill.allKnowDeadMs),
          n0(p.falseSuspicions),
          n0(p.falseDeaths),
        ]),
      ),
    );
  }
  return `${parts.join('\n')}\n`;
}
