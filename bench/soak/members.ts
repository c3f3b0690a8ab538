/**
 * The soak's running members: `fdkit agent` processes (test/cli/agent-process.ts), each with its HTTP API
 * on an ephemeral port of its own host (loopback, or 127.0.0.1 inside its namespace), restarted under
 * the same name and address, paused and continued. Every process a member ever had is kept, so that the
 * events of all its lives can be checked at the end.
 */
import { runIn } from '../../examples/support/netns.js';
import { type AgentPlacement, AgentProcess, startCluster, waitUntil } from '../../test/cli/agent-process.js';
import type { DeathSeen } from './checks.js';
import { fetchGetter } from './sampler.js';

/** Flags every soak agent runs with: the API on a free port, and the log line that gives its URL. */
const AGENT_ARGS = ['--http', '127.0.0.1:0', '--log-level', 'info'];

/** How long a member may take to serve its API after its process started. */
const HTTP_WAIT_MS = 20_000;

/** How long a member leaving on SIGTERM may take before it is killed. */
const LEAVE_WAIT_MS = 10_000;

/** One member across its lives. */
export class SoakMember {
  readonly name: string;
  readonly port: number;
  readonly placement: AgentPlacement | undefined;
  /** Every process it had, the current one last. */
  readonly lives: AgentProcess[];
  paused = false;

  constructor(first: AgentProcess, placement: AgentPlacement | undefined) {
    this.name = first.name;
    this.port = first.port;
    this.placement = placement;
    this.lives = [first];
  }

  get current(): AgentProcess {
    return this.lives[this.lives.length - 1]!;
  }

  get life(): number {
    return this.lives.length - 1;
  }

  /** The URL of the current process's API, from its log line; undefined until it serves. */
  get url(): string | undefined {
    for (const line of this.current.stderrLines) {
      if (!line.includes('"http api listening"')) continue;
      const url = (JSON.parse(line) as { url?: unknown }).url;
      if (typeof url === 'string') return url;
    }
    return undefined;
  }

  /** The body of `path` of the current process's API, undefined without an answer in `timeoutMs`. */
  async get(path: string, timeoutMs: number): Promise<string | undefined> {
    const url = this.url;
    if (url === undefined || !this.current.running || this.paused) return undefined;
    if (this.placement === undefined) return fetchGetter(`${url}${path}`, timeoutMs);
    try {
      const seconds = String(timeoutMs / 1000);
      return (
        await runIn({ ...this.placement, ip: this.placement.host }, [
          'curl',
          '-s',
          '-f',
          '-m',
          seconds,
          `${url}${path}`,
        ])
      ).stdout;
    } catch {
      return undefined;
    }
  }

  pause(): void {
    this.current.signal('SIGSTOP');
    this.paused = true;
  }

  resume(): void {
    this.current.signal('SIGCONT');
    this.paused = false;
  }

  /** Ends the current process: SIGKILL, or SIGTERM (a graceful leave) and SIGKILL if it overstays. */
  async stop(leave: boolean): Promise<void> {
    if (!leave) {
      await this.current.kill();
      return;
    }
    this.current.signal('SIGTERM');
    await Promise.race([this.current.whenClosed, sleepMs(LEAVE_WAIT_MS)]);
    await this.current.kill();
  }

  /** Starts a new process under the same name and address, joining through `seed`. */
  restart(seed: string): void {
    // --retry-join: under loss the first join may fail, and a member that exits is no soak.
    const args = ['--join', seed, '--retry-join', ...AGENT_ARGS];
    this.lives.push(new AgentProcess(this.name, this.port, args, this.placement));
  }

  /** Waits until the current process serves its API; false when it did not within the bound. */
  serving(): Promise<boolean> {
    return waitUntil(() => this.url !== undefined || !this.current.running, HTTP_WAIT_MS, 50).then(
      () => this.url !== undefined,
    );
  }

  /**
   * Processes that ended without being told to, as sentences: the current one must still run, an earlier
   * one must have ended by SIGKILL or, after SIGTERM's leave, with status 0.
   */
  unexpectedExits(): string[] {
    const found: string[] = [];
    for (const [life, agent] of this.lives.entries()) {
      const exit = agent.exit;
      const current = life === this.lives.length - 1;
      if (current && exit === undefined) continue;
      if (!current && exit !== undefined && (exit.signal === 'SIGKILL' || exit.code === 0)) continue;
      const how = exit === undefined ? 'did not end' : `ended with code ${exit.code}, signal ${exit.signal}`;
      found.push(
        `${this.name} (life ${life}) ${how}${current ? ' on its own' : ''}: ${agent.stderrLines.slice(-2).join(' | ')}`,
      );
    }
    return found;
  }

  /** Every `dead` event this member's processes printed, as ms after `t0`. */
  deathsSeen(t0: number): DeathSeen[] {
    return this.lives.flatMap((agent) =>
      agent.events
        .filter((e) => e.line.event === 'dead')
        .map((e) => ({ observer: this.name, member: e.line.member, atMs: e.at - t0 })),
    );
  }
}

function sleepMs(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Starts the cluster (every member joining through the first) and waits for every API. */
export async function startSoakMembers(
  names: readonly string[],
  hosts: readonly AgentPlacement[] | undefined,
  port: number,
): Promise<SoakMember[]> {
  const agents = await startCluster(names, {
    args: AGENT_ARGS,
    convergeTimeoutMs: 90_000,
    ...(hosts === undefined ? {} : { placements: { hosts, port } }),
  });
  const members = agents.map((a, i) => new SoakMember(a, hosts?.[i]));
  for (const m of members) {
    if (!(await m.serving())) {
      throw new Error(`${m.name} did not serve its API within ${HTTP_WAIT_MS} ms:\n${m.current.describe()}`);
    }
  }
  return members;
}
