/**
 * Runs the embedded-membership example: starts N instances of `server.ts` (default 3) on 127.0.0.1,
 * each an HTTP service with an fdkit member inside, waits until every instance's `/members` shows all of
 * them alive, kills the leader with SIGKILL, and shows the survivors' views converge: every survivor's
 * `/members` holds it dead and every survivor's `/leader` names the same new leader. Then it stops the
 * rest (they leave gracefully) and exits: 0 when everything converged, 1 otherwise.
 *
 * Results on stdout, progress on stderr. Every wait is bounded, so it ends by itself within a minute.
 *
 *   npm run example:membership            # 3 instances
 *   npm run example:membership -- 5       # 5 instances
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { LeaderBody, MembersBody, ReadyMessage } from './server.js';

/** Bound on every instance listening, from the first fork. */
const READY_TIMEOUT_MS = 15_000;
/** Bound on every instance holding all alive, and on the survivors converging after the kill. */
const CONVERGE_TIMEOUT_MS = 20_000;
/** How often the instances are queried while waiting. */
const POLL_MS = 200;
/** Bound on the instances exiting once asked to. */
const STOP_TIMEOUT_MS = 5000;

interface Instance {
  readonly name: string;
  readonly priority: number;
  readonly child: ChildProcess;
  ready?: ReadyMessage;
  exited: boolean;
}

const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};
const progress = (line: string): void => {
  process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(1)}s] ${line}\n`);
};
const started = performance.now();
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const root = fileURLToPath(new URL('../..', import.meta.url));
const serverScript = fileURLToPath(new URL('./server.ts', import.meta.url));
const instances: Instance[] = [];

function start(name: string, priority: number, seed?: string): Instance {
  const child = fork(serverScript, [name, String(priority), ...(seed === undefined ? [] : [seed])], {
    cwd: root,
    // The instances are TypeScript too: tsx compiles them on the fly.
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const instance: Instance = { name, priority, child, exited: false };
  child.on('message', (message: unknown) => {
    if (typeof message === 'object' && message !== null && 'kind' in message && message.kind === 'ready') {
      instance.ready = message as ReadyMessage;
    }
  });
  child.on('exit', () => {
    instance.exited = true;
  });
  instances.push(instance);
  return instance;
}

async function get<T>(instance: Instance, path: '/members' | '/leader'): Promise<T | undefined> {
  if (instance.ready === undefined || instance.exited) return undefined;
  try {
    const response = await fetch(`${instance.ready.http}${path}`, { signal: AbortSignal.timeout(1000) });
    return response.ok ? ((await response.json()) as T) : undefined;
  } catch {
    return undefined;
  }
}

/** What one instance answers now. */
interface Answer {
  readonly instance: Instance;
  readonly members: MembersBody | undefined;
  readonly leader: LeaderBody | undefined;
}

function query(list: readonly Instance[]): Promise<Answer[]> {
  return Promise.all(
    list.map(async (instance) => ({
      instance,
      members: await get<MembersBody>(instance, '/members'),
      leader: await get<LeaderBody>(instance, '/leader'),
    })),
  );
}

/** Polls `list` until `done` holds for their answers (returns them) or `timeoutMs` passes (undefined). */
async function until(
  list: readonly Instance[],
  done: (answers: readonly Answer[]) => boolean,
  timeoutMs: number,
): Promise<Answer[] | undefined> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const answers = await query(list);
    if (done(answers)) return answers;
    if (performance.now() > deadline) return undefined;
    await sleep(POLL_MS);
  }
}

function stateOf(answer: Answer, name: string): string | undefined {
  return answer.members?.members.find((m) => m.name === name)?.state;
}

/** One line per instance: its view and whom it names leader. */
function show(answers: readonly Answer[]): void {
  for (const a of answers) {
    const view = a.members?.members.map((m) => `${m.name} ${m.state}`).join(', ') ?? '(no answer)';
    const leader = a.leader === undefined ? '?' : `${a.leader.leader} (epoch ${a.leader.epoch})`;
    out(`  ${a.instance.name} at ${a.instance.ready?.http}: /members ${view}; /leader ${leader}`);
  }
}

/** Stops every instance still running: SIGTERM (they leave), then SIGKILL after a bound. */
async function stopAll(): Promise<void> {
  const running = instances.filter((i) => !i.exited);
  for (const i of running) i.child.kill('SIGTERM');
  const deadline = performance.now() + STOP_TIMEOUT_MS;
  while (running.some((i) => !i.exited) && performance.now() < deadline) await sleep(50);
  for (const i of running) if (!i.exited) i.child.kill('SIGKILL');
}

async function main(): Promise<number> {
  const count = Number(process.argv[2] ?? 3);
  if (!Number.isInteger(count) || count < 2 || count > 20) {
    process.stderr.write(
      `run.ts: the instance count must be an integer from 2 to 20, got ${process.argv[2]}\n`,
    );
    return 2;
  }
  // svc-1 has the top priority, so it leads; it is also the seed the others join through.
  const names = Array.from({ length: count }, (_, i) => `svc-${i + 1}`);
  progress(`starting ${names[0]}, the seed`);
  const first = start(names[0]!, count);
  const readyBy = performance.now() + READY_TIMEOUT_MS;
  while (first.ready === undefined && !first.exited && performance.now() < readyBy) await sleep(20);
  if (first.ready === undefined) throw new Error(`${first.name} did not start`);
  progress(`starting ${names.slice(1).join(', ')}, joining through ${first.ready.gossip}`);
  const seed = first.ready.gossip;
  for (const [i, name] of names.slice(1).entries()) start(name, count - 1 - i, seed);
  while (instances.some((i) => i.ready === undefined) && performance.now() < readyBy) await sleep(20);
  const late = instances.filter((i) => i.ready === undefined);
  if (late.length > 0) throw new Error(`${late.map((i) => i.name).join(', ')} did not start`);

  progress('waiting until every instance holds all alive and names one leader');
  const formed = await until(
    instances,
    (answers) =>
      answers.every((a) => names.every((n) => stateOf(a, n) === 'alive')) &&
      new Set(answers.map((a) => a.leader?.leader)).size === 1,
    CONVERGE_TIMEOUT_MS,
  );
  if (formed === undefined) {
    out('the cluster did not form in time; the views were:');
    show(await query(instances));
    return 1;
  }
  const leader = formed[0]!.leader!.leader;
  out(`formed: ${count} instances, each holding all ${count} alive and naming ${leader} leader`);
  show(formed);

  const victim = instances.find((i) => i.name === leader)!;
  const survivors = instances.filter((i) => i !== victim);
  out(`killing ${victim.name}, the leader (SIGKILL, pid ${victim.child.pid})`);
  const killedAt = performance.now();
  victim.child.kill('SIGKILL');
  const converged = await until(
    survivors,
    (answers) => {
      const leaders = new Set(answers.map((a) => a.leader?.leader));
      return (
        answers.every((a) => stateOf(a, victim.name) === 'dead') &&
        leaders.size === 1 &&
        !leaders.has(victim.name) &&
        !leaders.has(undefined)
      );
    },
    CONVERGE_TIMEOUT_MS,
  );
  if (converged === undefined) {
    out(`the survivors did not converge within ${CONVERGE_TIMEOUT_MS / 1000} s; their views:`);
    show(await query(survivors));
    return 1;
  }
  const next = converged[0]!.leader!.leader;
  out(
    `converged ${((performance.now() - killedAt) / 1000).toFixed(2)} s after the kill: every survivor holds ` +
      `${victim.name} dead and names ${next} leader`,
  );
  show(converged);
  return 0;
}

let status = 1;
try {
  status = await main();
} catch (error) {
  process.stderr.write(`run.ts: ${error instanceof Error ? error.message : String(error)}\n`);
} finally {
  progress('stopping the instances');
  await stopAll();
  progress(instances.every((i) => i.exited) ? 'every instance exited' : 'some instance did not exit');
}
process.exit(status);
