/**
 * The fuzz's checks and its two result files: `fuzz.json` (every figure) and `fuzz.md` (tables, and a
 * prose section for docs/hardening.md: what was sent, what came out, what an attacker without the key
 * can and cannot do).
 */

import { markdownTable } from '../support/format.js';
import { toJson } from '../support/report.js';
import type { RunResult } from './run.js';

/** Most the members' process may grow over a run: the members' tables, buffers and V8's heap slack. */
export const RSS_GROWTH_MAX_BYTES = 128 * 2 ** 20;
const TOP = 2 ** 32 - 1;

const total = (drops: Record<string, number>): number => Object.values(drops).reduce((a, b) => a + b, 0);

/** What is wrong with one run, or nothing. */
export function checks(r: RunResult): string[] {
  const out: string[] = [];
  const label = `${r.mode}:`;
  if (r.exceptions.length > 0)
    out.push(`${label} ${r.exceptions.length} exceptions: ${r.exceptions.slice(0, 3).join('; ')}`);
  if (r.childExit !== undefined) out.push(`${label} the members' process ${r.childExit}`);
  if (!r.converged) out.push(`${label} the members did not all hold each other alive again`);
  if (r.connectionsOpenAfter > r.connectionsOpenBefore) {
    out.push(
      `${label} ${r.connectionsOpenAfter - r.connectionsOpenBefore} connections still open after the attack`,
    );
  }
  if (r.rssAfterBytes - r.rssBeforeBytes > RSS_GROWTH_MAX_BYTES) {
    out.push(
      `${label} RSS grew by ${mb(r.rssAfterBytes - r.rssBeforeBytes)}, more than ${mb(RSS_GROWTH_MAX_BYTES)}`,
    );
  }
  for (const group of ['slowloris', 'mid-frame', 'idle']) {
    const held = r.streams[group]?.held ?? 0;
    if (held > 0) out.push(`${label} ${held} ${group} connections still open long after the stream timeout`);
  }
  const dropped = total(r.datagramDrops);
  if (r.mode === 'keyring') {
    if (r.stateChanges !== 0) out.push(`${label} ${r.stateChanges} state changes under a keyring`);
    if (r.incarnationJumps !== 0)
      out.push(`${label} ${r.incarnationJumps} incarnation jumps under a keyring`);
    if (r.incarnationsAfter.some((inc, i) => inc !== r.incarnationsBefore[i]))
      out.push(`${label} incarnations moved`);
    for (const reason of ['not-encrypted', 'decrypt-failed']) {
      const want = r.expectedKeyringDrops[reason] ?? 0;
      const got = r.datagramDrops[reason] ?? 0;
      // Lost in the kernel, a datagram is never counted: it can only make the count lower.
      if (got > want || got < want - r.kernelSocketDrops) out.push(`${label} ${got} ${reason}, sent ${want}`);
    }
    if (
      dropped !==
      (r.expectedKeyringDrops['not-encrypted'] ?? 0) + (r.expectedKeyringDrops['decrypt-failed'] ?? 0)
    ) {
      if (r.kernelSocketDrops === 0) out.push(`${label} ${dropped} drops in all, other reasons among them`);
    }
  } else if (dropped < r.invalidByConstruction - r.kernelSocketDrops || dropped > r.packets) {
    out.push(`${label} ${dropped} drops for ${r.invalidByConstruction} invalid datagrams of ${r.packets}`);
  }
  return out;
}

function mb(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(1)} MB`;
}

export function fuzzJson(header: Record<string, unknown>, runs: readonly RunResult[]): string {
  return `${toJson({ ...header, runs })}\n`;
}

function runTable(runs: readonly RunResult[]): string {
  const row = (label: string, f: (r: RunResult) => string): string[] => [label, ...runs.map(f)];
  return markdownTable(
    ['', ...runs.map((r) => r.mode)],
    [
      row('datagrams sent', (r) => String(r.packets)),
      row('bytes sent', (r) => mb(r.bytes)),
      row('datagram phase', (r) => `${r.datagramSeconds.toFixed(1)} s`),
      row('datagrams/s', (r) => String(r.packetsPerSecond)),
      row('invalid by construction', (r) => String(r.invalidByConstruction)),
      row('drops counted (datagrams)', (r) => String(total(r.datagramDrops))),
      row("lost in the kernel (drops of the members' sockets)", (r) => String(r.kernelSocketDrops)),
      row('answers to the fuzzer', (r) => String(r.replies)),
      row('exceptions', (r) => String(r.exceptions.length)),
      row('error log lines', (r) => String(r.errorLogs)),
      row('state changes (member events)', (r) => String(r.stateChanges)),
      row('incarnation jumps counted', (r) => String(r.incarnationJumps)),
      row('own incarnations after', (r) =>
        r.incarnationsAfter.map((i) => (i === TOP ? '2^32−1' : String(i))).join(', '),
      ),
      row('converged after', (r) => (r.converged ? `yes, ${(r.settleMs / 1000).toFixed(1)} s` : 'NO')),
      row(
        'RSS before / after / peak',
        (r) => `${mb(r.rssBeforeBytes)} / ${mb(r.rssAfterBytes)} / ${mb(r.rssPeakBytes)}`,
      ),
      row(
        'event-loop delay p50 / p99 / max',
        (r) =>
          `${r.loopDelayMs.p50.toFixed(1)} / ${r.loopDelayMs.p99.toFixed(1)} / ${r.loopDelayMs.max.toFixed(0)} ms`,
      ),
      row('connections open before / after', (r) => `${r.connectionsOpenBefore} / ${r.connectionsOpenAfter}`),
    ],
  );
}

function keyedTable(runs: readonly RunResult[], pick: (r: RunResult) => Record<string, number>): string {
  const keys = [...new Set(runs.flatMap((r) => Object.keys(pick(r))))].sort();
  return markdownTable(
    ['', ...runs.map((r) => r.mode)],
    keys.map((k) => [k, ...runs.map((r) => String(pick(r)[k] ?? 0))]),
  );
}

function streamTable(runs: readonly RunResult[]): string {
  const rows: string[][] = [];
  for (const r of runs) {
    for (const [group, g] of Object.entries(r.streams)) {
      rows.push([
        r.mode,
        group,
        String(g.opened),
        String(g.reset),
        String(g.ended),
        String(g.held),
        String(g.unconnected),
        `${g.maxMs} ms`,
      ]);
    }
  }
  return markdownTable(
    [
      'mode',
      'connections',
      'opened',
      'reset by member',
      'ended by member',
      'held until the fuzzer closed',
      'never connected (listen backlog full)',
      'slowest end',
    ],
    rows,
  );
}

export function fuzzMarkdown(
  header: Record<string, unknown>,
  runs: readonly RunResult[],
  failures: readonly string[],
): string {
  const plain = runs.find((r) => r.mode === 'plain');
  const keyring = runs.find((r) => r.mode === 'keyring');
  const lines = [
    '# Fuzzing live members',
    '',
    `\`npm run fuzz\` on ${String(header.date)}, commit ${String(header.commit)}, ${String(header.cpu)} (${String(header.cpuCount)} cores), Node ${String(header.node)}; ${Number(header.seconds).toFixed(0)} s in all. Seed ${runs[0]?.seed ?? ''}.`,
    failures.length === 0
      ? 'Every check passed.'
      : `Checks failed:\n\n${failures.map((f) => `- ${f}`).join('\n')}`,
    '',
    '## For docs/hardening.md',
    '',
    ...prose(plain, keyring),
    '',
    '## Runs',
    '',
    runTable(runs),
    '',
    '## Datagrams sent, by kind',
    '',
    keyedTable(runs, (r) => r.sentByKind),
    '',
    '## Datagram drops the members counted, by reason',
    '',
    keyedTable(runs, (r) => r.datagramDrops),
    '',
    '## Stream connections',
    '',
    streamTable(runs),
    '',
    'Drops the members counted in the stream phase:',
    '',
    keyedTable(runs, (r) => r.streamDrops),
    '',
    '## State changes, by event (plain and keyholder runs: forged statements believed)',
    '',
    keyedTable(runs, (r) => r.stateChangesByType),
    '',
  ];
  return `${lines.join('\n')}\n`;
}

function prose(plain: RunResult | undefined, keyring: RunResult | undefined): string[] {
  const out: string[] = [];
  const n = (plain ?? keyring)?.packets ?? 0;
  out.push(
    `The fuzzer (\`bench/fuzz/\`) sends ${n.toLocaleString('en')} datagrams to a live cluster of three members (real \`createNode\` members on loopback UDP and TCP, in a process of their own), once per mode, paced so that at most 64 datagrams and 48 KiB are in flight to a member: random bytes of every length from 0 to the 1,500-byte MTU and beyond it to 65,507; valid packets of every type with bits flipped, cut short, extended, overwritten; the same with fields swapped, removed, of the wrong type, NaN, Infinity, negative incarnations, 60 kB names, strings claiming 4 GiB, arrays nested up to 21,000 deep; packets the members sent each other, captured and replayed later, some several times, from three addresses no member has; forged statements that a live member is dead or suspect at 2^32 − 1, 100 and 65 above its incarnation, or dead within 64 of it, alive at 2^32 − 1, and about members that do not exist; and valid packets sealed under a key no member has. Then stream connections: garbage frames, a state exchange with a 64 kB name or claiming 2^32 − 1 members, one declaring a member dead at 2^32 − 1, slowloris connections (a byte a second), frames stopped half-way, idle connections by the thousand, and watch requests.`,
  );
  if (keyring !== undefined) {
    out.push(
      '',
      `**With a keyring** the attacker changes nothing: of ${keyring.packets.toLocaleString('en')} datagrams, every one that was not a replay of the members' own sealed traffic was dropped before it was read (${keyring.datagramDrops['not-encrypted'] ?? 0} \`not-encrypted\`, ${keyring.datagramDrops['decrypt-failed'] ?? 0} \`decrypt-failed\`; the fuzzer sent ${keyring.expectedKeyringDrops['not-encrypted'] ?? 0} and ${keyring.expectedKeyringDrops['decrypt-failed'] ?? 0}, telling them apart by their first byte), ${keyring.stateChanges} state changes, ${keyring.incarnationJumps} incarnation jumps, ${keyring.exceptions.length} exceptions, RSS ${mb(keyring.rssBeforeBytes)} before and ${mb(keyring.rssAfterBytes)} after, event-loop delay p99 ${keyring.loopDelayMs.p99.toFixed(1)} ms. Replayed sealed packets (stale, duplicated, from other addresses) open, and change nothing: they say what the members already hold.`,
    );
  }
  if (plain !== undefined) {
    const top = plain.incarnationsAfter.some((i) => i === TOP);
    out.push(
      '',
      `**Without a keyring** no datagram crashed anything or went uncounted: ${plain.exceptions.length} exceptions, ${total(plain.datagramDrops).toLocaleString('en')} drops (at least the ${plain.invalidByConstruction.toLocaleString('en')} invalid by construction), RSS ${mb(plain.rssBeforeBytes)} before and ${mb(plain.rssAfterBytes)} after (peak ${mb(plain.rssPeakBytes)}), event-loop delay p99 ${plain.loopDelayMs.p99.toFixed(1)} ms. Forged statements are believed within the cap: ${plain.stateChanges} member events (strangers joining and dying, near deaths refuted), ${plain.incarnationJumps} statements capped, and all three members held each other alive again ${(plain.settleMs / 1000).toFixed(1)} s after the attack.` +
        (top
          ? " But a member's own incarnation reached 2^32 − 1: a refutation followed a forged accusation to the top."
          : ` A member accused about itself far ahead climbs no higher than 2^20 above the wall clock in seconds: the members' own incarnations went from ${plain.incarnationsBefore.join(', ')} to ${plain.incarnationsAfter.join(', ')}, far below 2^32 − 1.`),
    );
  }
  const runs = [plain, keyring].filter((r): r is RunResult => r !== undefined);
  const cut = (group: string): string =>
    runs
      .map((r) => `${r.streams[group]?.reset ?? 0} of ${r.streams[group]?.opened ?? 0} (${r.mode})`)
      .join(', ');
  const watches = runs.map((r) => `${r.streams.watch?.held ?? 0} (${r.mode})`).join(', ');
  out.push(
    '',
    `Slow and half-open TCP is cut by the member, at the stream timeout, or at once when it holds its limit of 256 inbound connections already (\`connection-limit\`): slowloris connections ${cut('slowloris')}, frames stopped half-way ${cut('mid-frame')}, idle connections ${cut('idle')}. What an attacker without the key **can** still do is take connection slots: a watch request (an empty frame, 4 bytes, not authenticated) is held without a timeout by design, up to half the limit, and the watch requests held until the fuzzer itself closed them were ${watches}. While they are held, and the other half is kept busy by connections renewed at the stream timeout, that member refuses state exchanges, joins, TCP fallback probes and watches from its peers (\`connection-limit\`): availability, not state. The members' own watches of each other went from ${runs.map((r) => `${r.connectionsOpenBefore} to ${r.connectionsOpenAfter} (${r.mode})`).join(', ')}, most likely because a watch ends when its member is held dead, which forged deaths within the cap do, and its renewal was refused while the slots were taken (not traced further).`,
  );
  return out;
}
