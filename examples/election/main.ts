/**
 * The election example: a leader hint decides who campaigns for an etcd lease, and the winner's lease
 * token fences its writes. Three candidate processes on 127.0.0.1 (`candidate.ts`), ranked c1 > c2 > c3,
 * share an etcd (started here, on loopback) and a SQLite journal. Then:
 *
 * 1. c1 leads, wins the lease and writes;
 * 2. c1 is killed (SIGKILL): every hint moves to c2 within a second; c2 campaigns, and wins once c1's
 *    lease has run out in etcd, with a higher token;
 * 3. c2 is frozen (SIGSTOP) in the middle of a write's work, for longer than its lease: the hints move to
 *    c3, which wins the lease, claims the journal (raises its fence row to c3's token) and writes;
 * 4. c2 wakes (SIGCONT) and finishes its write, which is refused and writes nothing: by c2's own lease
 *    check at the moment of the write (it reads the clock), or, had the pause fallen after that check,
 *    inside the database call, by the journal's fence, which c3's claim raised; c2 stops.
 *
 * Every newly elected candidate claims the journal before it reads or writes, and writes under that
 * claim. The hint gives liveness (someone campaigns soon after the leader goes); only the lease and the
 * fence give safety (a leader that does not know it was replaced cannot write). Progress on stderr; the last stdout line is a
 * JSON summary. Every wait is bounded: it ends by itself, in about 15 s on a quiet machine.
 *
 *   npm run example:election
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEtcd } from '../support/etcd-server.js';
import { createJournal, summarizeJournal } from './journal.js';
import { type CandidateMessage, type CandidateSettings, isCandidateMessage } from './messages.js';

const TTL_MS = 2000;
const WORK_MS = 300;
/**
 * Bound on each phase of the scenario. A phase takes a few seconds; the bound is generous because on a
 * loaded machine the members' timers run late, which Lifeguard answers by slowing their probing down.
 */
const PHASE_TIMEOUT_MS = 30_000;
/** c2 stays frozen this long after c3 has written: its lease is long gone by then. */
const FROZEN_AFTER_TAKEOVER_MS = 500;
const STOP_TIMEOUT_MS = 5000;

const CANDIDATE = fileURLToPath(new URL('./candidate.ts', import.meta.url));
const started = performance.now();
const at = (): string => `${((performance.now() - started) / 1000).toFixed(2)}s`;
const say = (line: string): void => {
  process.stderr.write(`${at()}  ${line}\n`);
};
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface Candidate {
  readonly name: string;
  readonly child: ChildProcess;
  readonly heard: { readonly atMs: number; readonly message: CandidateMessage }[];
  gossip?: string;
  exited: boolean;
}

function start(settings: CandidateSettings): Candidate {
  const child = fork(CANDIDATE, [JSON.stringify(settings)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const candidate: Candidate = { name: settings.name, child, heard: [], exited: false };
  child.on('message', (message: unknown) => {
    if (!isCandidateMessage(message)) return;
    candidate.heard.push({ atMs: performance.now(), message });
    if (message.type === 'ready') candidate.gossip = message.gossip;
    if (message.type !== 'working' && message.type !== 'wrote') {
      say(`${settings.name}: ${describe(message)}`);
    }
  });
  child.on('exit', () => {
    candidate.exited = true;
  });
  return candidate;
}

function describe(message: CandidateMessage): string {
  switch (message.type) {
    case 'ready':
      return `member at ${message.gossip}`;
    case 'leader':
      return `hint names ${message.leader} (epoch ${message.epoch})`;
    case 'view':
      return `sees ${message.member} ${message.state} (${message.cause})`;
    case 'campaigning':
      return 'campaigns for the lease';
    case 'elected':
      return `holds the lease, token ${message.token}`;
    case 'working':
      return `working under token ${message.token}`;
    case 'wrote':
      return `wrote entry ${message.seq} under token ${message.token}`;
    case 'rejected':
      return `write REFUSED by the journal: token ${message.token}, the journal has seen ${message.highest}; stops`;
    case 'claimed':
      return `claims the journal: its fence now holds token ${message.token}`;
    case 'lost':
      return message.at === 'write'
        ? `lease lost (${message.code}), found by its own check at the write, which wrote nothing; stops`
        : `lease lost (${message.code})`;
    case 'stepped-down':
      return `steps down, hint names ${message.leader}`;
  }
}

/** Waits until `check` holds; false after `timeoutMs`. */
async function until(check: () => boolean, timeoutMs = PHASE_TIMEOUT_MS): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > deadline) return false;
    await sleep(20);
  }
  return true;
}

const find = <T extends CandidateMessage['type']>(
  candidate: Candidate,
  type: T,
  since = 0,
): Extract<CandidateMessage, { type: T }> | undefined =>
  candidate.heard.find((h) => h.atMs >= since && h.message.type === type)?.message as
    | Extract<CandidateMessage, { type: T }>
    | undefined;

async function stopAll(candidates: readonly Candidate[]): Promise<void> {
  for (const c of candidates) {
    if (c.exited) continue;
    c.child.kill('SIGCONT');
    c.child.kill('SIGTERM');
  }
  await until(() => candidates.every((c) => c.exited), STOP_TIMEOUT_MS);
  for (const c of candidates) if (!c.exited) c.child.kill('SIGKILL');
}

async function scenario(candidates: Candidate[], etcd: string[], dbPath: string): Promise<string[]> {
  const problems: string[] = [];
  const settings = (name: string, priority: number, seed?: string): CandidateSettings => ({
    name,
    priority,
    etcd,
    dbPath,
    ttlMs: TTL_MS,
    workMs: WORK_MS,
    ...(seed === undefined ? {} : { seed }),
  });
  const c1 = start(settings('c1', 3));
  candidates.push(c1);
  if (!(await until(() => c1.gossip !== undefined))) return ['c1 never started'];
  const c2 = start(settings('c2', 2, c1.gossip));
  const c3 = start(settings('c3', 1, c1.gossip));
  candidates.push(c2, c3);

  say('== 1. c1 leads: waiting for every hint to name it, and for c1 to hold the lease and write');
  const names = (c: Candidate, leader: string): boolean => {
    const leaders = c.heard.flatMap((h) => (h.message.type === 'leader' ? [h.message.leader] : []));
    return leaders[leaders.length - 1] === leader;
  };
  const formed = await until(() => names(c2, 'c1') && names(c3, 'c1') && find(c1, 'wrote') !== undefined);
  if (!formed) return ['the cluster never agreed on c1, or c1 never wrote'];

  say('== 2. SIGKILL c1');
  const killedAt = performance.now();
  c1.child.kill('SIGKILL');
  if (!(await until(() => find(c2, 'wrote', killedAt) !== undefined))) return ['c2 never took over'];
  const c2Elected = find(c2, 'elected', killedAt);
  say(`c2 writes ${((performance.now() - killedAt) / 1000).toFixed(2)}s after the kill`);

  say('== 3. SIGSTOP c2 in the middle of a write');
  const workingCount = (): number => c2.heard.filter((h) => h.message.type === 'working').length;
  const before = workingCount();
  if (!(await until(() => workingCount() > before))) return ['c2 never started another write'];
  c2.child.kill('SIGSTOP');
  const stoppedAt = performance.now();
  if (!(await until(() => find(c3, 'wrote', stoppedAt) !== undefined, PHASE_TIMEOUT_MS))) {
    c2.child.kill('SIGCONT');
    return ['c3 never took over from the frozen c2'];
  }
  say(`c3 writes ${((performance.now() - stoppedAt) / 1000).toFixed(2)}s after c2 froze`);
  await sleep(FROZEN_AFTER_TAKEOVER_MS);

  say('== 4. SIGCONT c2: it finishes the write it had started');
  const contAt = performance.now();
  c2.child.kill('SIGCONT');
  const refusedOrLost = (): boolean =>
    find(c2, 'rejected', contAt) !== undefined || find(c2, 'lost', contAt) !== undefined;
  if (!(await until(refusedOrLost))) problems.push('c2 neither was refused nor saw its lease lost');
  const c3Elected = find(c3, 'elected', stoppedAt);
  if (c2Elected === undefined || c3Elected === undefined) problems.push('an election went unreported');
  await sleep(500);
  return problems;
}

async function main(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'fdkit-election-'));
  const dbPath = join(dir, 'journal.db');
  createJournal(dbPath);
  say('starting etcd on 127.0.0.1');
  const etcd = await startEtcd();
  const candidates: Candidate[] = [];
  let problems: string[];
  try {
    problems = await scenario(candidates, [etcd.endpoint], dbPath);
  } finally {
    await stopAll(candidates);
    await etcd.stop();
  }
  const journal = summarizeJournal(dbPath);
  rmSync(dir, { recursive: true, force: true });
  const elected = candidates.flatMap((c) =>
    c.heard.flatMap((h) => (h.message.type === 'elected' ? [{ name: c.name, token: h.message.token }] : [])),
  );
  const count = (test: (message: CandidateMessage) => boolean): number =>
    candidates.reduce((n, c) => n + c.heard.filter((h) => test(h.message)).length, 0);
  // A stale write is refused by the writer's own lease check at the write, or by the journal's fence.
  const refusedByLease = count((m) => m.type === 'lost' && m.at === 'write');
  const refusedByFence = count((m) => m.type === 'rejected');
  for (const line of problems) process.stdout.write(`problem: ${line}\n`);
  process.stdout.write(`journal: ${JSON.stringify(journal.byHolder)}\n`);
  process.stdout.write(
    `${JSON.stringify({ elected, staleWritesRefused: refusedByLease + refusedByFence, refusedByLease, refusedByFence, entries: journal.entries, outOfOrder: journal.outOfOrder })}\n`,
  );
  return problems.length === 0 && journal.outOfOrder === 0 ? 0 : 1;
}

process.exitCode = await main();
