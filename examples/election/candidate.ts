/**
 * One candidate of the election example, run as its own process by `main.ts`. It is a SWIM member with a
 * leader hint, and it campaigns for the `election` lease in etcd only while its hint names itself: the
 * hint decides who asks, so the members do not all hammer the lock service, and the lease decides who
 * holds. While it holds the lease it writes to the journal, each write after some work:
 *
 * 1. check the lease (`throwIfLost()` reads the monotonic clock) and the hint (step down when it names
 *    someone else);
 * 2. do the work (`workMs`): the moment a pause can strike, after every check;
 * 3. write under its claim on the journal: the lease is checked again at the moment of the write, and
 *    the journal refuses a writer that a newer holder has claimed over; either way it stops.
 *
 * The claim comes first, as soon as it is elected and before it reads or writes anything: it raises the
 * journal's fence to the new token, so an old leader that wakes afterwards is refused even if the new one
 * has not written yet.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  createEtcdLeaseProvider,
  createNode,
  LeaderHint,
  type Lease,
  LeaseError,
  StaleTokenError,
} from '../../src/index.js';
import { type ClaimedJournal, Journal } from './journal.js';
import type { CandidateMessage, CandidateSettings } from './messages.js';

const settings = JSON.parse(process.argv[2] ?? '') as CandidateSettings;
const tell = (message: CandidateMessage): void => {
  process.send?.(message);
};

const node = createNode({
  name: settings.name,
  bind: '127.0.0.1:0',
  meta: new TextEncoder().encode(`priority=${settings.priority}`),
});
await node.start();
tell({ type: 'ready', gossip: node.localAddress });
if (settings.seed !== undefined) node.join([settings.seed]).catch(() => {});
for (const state of ['suspect', 'dead', 'left'] as const) {
  node.on(state, (e) => tell({ type: 'view', member: e.member, state, cause: e.cause }));
}
node.on('alive', (e) => {
  if (e.cause !== 'joined') tell({ type: 'view', member: e.member, state: 'alive', cause: e.cause });
});
const hint = new LeaderHint(node);
hint.on('leader', (change) => tell({ type: 'leader', leader: change.leader, epoch: change.epoch }));
const journal = new Journal(settings.dbPath);
const leases = await createEtcdLeaseProvider({ hosts: [...settings.etcd], owner: settings.name });

let running = true;
// The parent went away (it ended the run, or was killed): so does the candidate.
process.on('disconnect', () => {
  running = false;
});
process.on('SIGTERM', () => {
  running = false;
});

/**
 * The lease as a fence holder, checked at the moment of each write. Until `Lease` has `throwUnlessHeld()`
 * itself, this adapts `throwIfLost()`; then it is `lease`.
 */
/** Resolves once the hint names this member, or the candidate is stopping. */
async function untilLeader(): Promise<void> {
  while (running && !hint.isLeader) await sleep(50);
}

/**
 * Tells the runner why a claim or a write under it was refused; rethrows any other error. A newer holder
 * has claimed the journal, or this one's lease is over: whatever it believed a moment ago, it stops.
 */
function refused(error: unknown, token: string): void {
  if (error instanceof StaleTokenError) tell({ type: 'rejected', token, highest: error.highest.toString() });
  else if (error instanceof LeaseError) tell({ type: 'lost', token, code: error.code, at: 'write' });
  else throw error;
}

/** Claims the journal, then writes until the lease is lost, a write refused, or the hint names another. */
async function serve(lease: Lease): Promise<void> {
  const token = lease.token.toString();
  let journaled: ClaimedJournal;
  try {
    journaled = journal.claim(settings.name, lease);
  } catch (error) {
    refused(error, token);
    return;
  }
  tell({ type: 'claimed', token });
  let seq = 0;
  for (;;) {
    try {
      lease.throwIfLost();
    } catch (error) {
      tell({ type: 'lost', token, code: (error as LeaseError).code, at: 'check' });
      return;
    }
    if (!running) return;
    if (!hint.isLeader) {
      tell({ type: 'stepped-down', token, leader: hint.leader });
      return;
    }
    tell({ type: 'working', token });
    await sleep(settings.workMs);
    try {
      journaled.write(++seq);
    } catch (error) {
      refused(error, token);
      return;
    }
    tell({ type: 'wrote', token, seq });
  }
}

while (running) {
  await untilLeader();
  if (!running) break;
  tell({ type: 'campaigning' });
  // Campaign while the hint says so: give up waiting for the lease when it names someone else.
  const campaign = new AbortController();
  const watch = (): void => {
    if (!hint.isLeader) campaign.abort();
  };
  hint.on('leader', watch);
  let lease: Lease | undefined;
  try {
    lease = await leases.acquire('election', { ttlMs: settings.ttlMs, signal: campaign.signal });
  } catch {
    // Aborted (no longer the hint's choice) or etcd unreachable: go back to waiting.
  } finally {
    hint.off('leader', watch);
  }
  if (lease === undefined) {
    await sleep(100);
    continue;
  }
  tell({ type: 'elected', token: lease.token.toString() });
  await serve(lease);
  await lease.release().catch(() => undefined);
}

hint.stop();
await leases.close();
journal.close();
await node.leave({ timeoutMs: 1000 }).catch(() => undefined);
await node.shutdown();
process.disconnect?.();
