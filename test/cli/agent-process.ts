/**
 * `fdkit agent` processes for the acceptance test (`test/cli/agent-cluster.system.test.ts`): spawned from the
 * build (`dist/cli/main.js`), stdout read line by line and every line checked against the event shape of
 * docs/design.md, stderr kept for diagnostics, free ports, and bounded waits. Every child is tracked so that
 * it can be killed however the test ends, and once more when the test process itself exits.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { killHard, killOnExit } from '../support/child-cleanup.js';
import { freePort } from '../support/free-port.js';
import { distPath } from '../support/fresh-dist.js';

export { freePort };

/** The built command; `npm test` builds before vitest runs. */
export const BIN = distPath('cli/main.js');

export const EVENT_NAMES = ['alive', 'suspect', 'dead', 'left', 'update'] as const;
export type AgentEventName = (typeof EVENT_NAMES)[number];

/** One stdout line of `fdkit agent`, as docs/design.md gives it. */
export interface AgentLine {
  readonly t: number;
  readonly node: string;
  readonly event: AgentEventName;
  readonly member: string;
  readonly incarnation: number;
  readonly cause: string;
}

/** A stdout line and when the test read it (`performance.now()` of the test process). */
export interface Received {
  readonly at: number;
  readonly line: AgentLine;
}

/** How a child ended. */
export interface AgentExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** `performance.now()` when the test learnt of it. */
  readonly at: number;
}

const LINE_KEYS = ['cause', 'event', 'incarnation', 'member', 'node', 't'];

/** The event line `text` is, or why it is not one, for an agent named `node`. */
export function parseAgentLine(text: string, node: string): AgentLine | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `not JSON (${error instanceof Error ? error.message : String(error)})`;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  const keys = Object.keys(value).sort();
  if (keys.join(',') !== LINE_KEYS.join(',')) return `keys are ${keys.join(',')}, not ${LINE_KEYS.join(',')}`;
  const o = value as Record<string, unknown>;
  if (typeof o.t !== 'number' || !Number.isSafeInteger(o.t) || o.t <= 0) return 't is not Unix ms';
  if (o.node !== node) return `node is ${JSON.stringify(o.node)}, not ${JSON.stringify(node)}`;
  if (typeof o.event !== 'string' || !(EVENT_NAMES as readonly string[]).includes(o.event)) {
    return `event ${JSON.stringify(o.event)} is not one of ${EVENT_NAMES.join(', ')}`;
  }
  if (typeof o.member !== 'string' || o.member.length === 0) return 'member is not a non-empty string';
  if (
    typeof o.incarnation !== 'number' ||
    !Number.isInteger(o.incarnation) ||
    o.incarnation < 0 ||
    o.incarnation > 0xffff_ffff
  ) {
    return 'incarnation is not an unsigned 32-bit integer';
  }
  if (typeof o.cause !== 'string' || o.cause.length === 0) return 'cause is not a non-empty string';
  return value as AgentLine;
}

/**
 * Where an agent runs when not on loopback: in a network namespace (examples/support/netns.ts), bound to
 * that namespace's address.
 */
export interface AgentPlacement {
  readonly netns: string;
  readonly host: string;
  /** The command prefix that runs a program in the namespace (`ip netns exec NAME`). */
  readonly exec: readonly string[];
}

/** The message `fdkit agent` logs (pino, level info) once it is bound and serving. */
const STARTED_MSG = 'agent started';

/** One `fdkit agent` child process and everything it printed. */
export class AgentProcess {
  readonly name: string;
  readonly port: number;
  readonly address: string;
  /** The namespace it runs in, if any. */
  readonly netns: string | undefined;
  readonly child: ChildProcess;
  /** Stdout lines that are event lines, in order. */
  readonly events: Received[] = [];
  /** Stdout lines that are not, with the reason. */
  readonly badLines: { readonly text: string; readonly problem: string }[] = [];
  readonly stderrLines: string[] = [];
  exit: AgentExit | undefined;
  /** True once the process exited and its stdout and stderr were read to the end. */
  closed = false;
  /** Resolves once {@link AgentProcess.closed}. */
  readonly whenClosed: Promise<void>;

  /**
   * Starts `fdkit agent --name name --bind host:port ...args` on 127.0.0.1, or in `placement`'s namespace
   * through `ip netns exec` (which execs the agent: the child's pid is the agent's, and signals reach it).
   */
  constructor(name: string, port: number, args: readonly string[], placement?: AgentPlacement) {
    this.name = name;
    this.port = port;
    this.netns = placement?.netns;
    this.address = `${placement?.host ?? '127.0.0.1'}:${port}`;
    const agentArgv = [BIN, 'agent', '--name', name, '--bind', this.address, ...args];
    const child =
      placement === undefined
        ? spawn(process.execPath, agentArgv, { stdio: ['ignore', 'pipe', 'pipe'] })
        : spawn(placement.exec[0]!, [...placement.exec.slice(1), process.execPath, ...agentArgv], {
            stdio: ['ignore', 'pipe', 'pipe'],
          });
    this.child = child;
    killOnExit(child);
    createInterface({ input: child.stdout!, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (text) => {
      const at = performance.now();
      const parsed = parseAgentLine(text, name);
      if (typeof parsed === 'string') this.badLines.push({ text, problem: parsed });
      else this.events.push({ at, line: parsed });
    });
    createInterface({ input: child.stderr!, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (text) => {
      this.stderrLines.push(text);
      // In a namespace the test cannot connect to the agent (nothing routes there from its own
      // namespace), so the agent's own word that it is serving stands in for the connection check.
      if (this.netns !== undefined && !this.listening && text.includes(`"msg":"${STARTED_MSG}"`)) {
        this.listening = true;
      }
    });
    child.on('exit', (code, signal) => {
      this.exit = { code, signal, at: performance.now() };
    });
    if (placement === undefined) void this.watchListening();
    this.whenClosed = new Promise<void>((resolve) => {
      child.on('close', () => {
        this.closed = true;
        resolve();
      });
      child.on('error', () => {
        // spawn failed: 'close' may never come.
        this.closed = true;
        resolve();
      });
    });
  }

  /**
   * True once a TCP connection to the agent's port was accepted while it was running (checked in the
   * background, every 50 ms, until then); in a namespace, once the agent logged that it started (which
   * needs a log level of info or lower). The probe connection sends nothing and ends at once, which a
   * member answers by ending its side; it is not garbage.
   */
  listening = false;

  private async watchListening(): Promise<void> {
    while (!this.listening && this.running) {
      const accepted = await new Promise<boolean>((resolve) => {
        const socket = net.connect({ host: '127.0.0.1', port: this.port }, () => {
          socket.end();
          resolve(true);
        });
        socket.on('error', () => resolve(false));
        socket.on('close', () => resolve(false));
      });
      // A port taken by someone else accepts too; the agent then exits with "already in use".
      if (accepted && this.running) this.listening = true;
      else await sleep(50);
    }
  }

  /** True while the process has not exited. */
  get running(): boolean {
    return this.exit === undefined && !this.closed;
  }

  /** Sends `signal` to the process. */
  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** Kills the process (continuing it first if it was stopped) and waits, at most `timeoutMs`, for its end. */
  async kill(timeoutMs = 5000): Promise<void> {
    killHard(this.child);
    await Promise.race([this.whenClosed, sleep(timeoutMs)]);
  }

  /** Events about `member` read at or after `since`. */
  about(member: string, since = Number.NEGATIVE_INFINITY): Received[] {
    return this.events.filter((e) => e.line.member === member && e.at >= since);
  }

  /** The first `event` about `member` read at or after `since`. */
  first(member: string, event: AgentEventName, since = Number.NEGATIVE_INFINITY): Received | undefined {
    return this.events.find((e) => e.line.member === member && e.line.event === event && e.at >= since);
  }

  /** The state this agent last reported for `member` (`update` events do not change it). */
  stateOf(member: string): AgentEventName | undefined {
    for (let i = this.events.length - 1; i >= 0; i--) {
      const line = this.events[i]!.line;
      if (line.member === member && line.event !== 'update') return line.event;
    }
    return undefined;
  }

  /** Stdout, stderr and exit, for a failure message. */
  describe(members: readonly string[] = []): string {
    const state =
      (this.exit === undefined ? 'running' : `exited code=${this.exit.code} signal=${this.exit.signal}`) +
      (this.netns === undefined ? '' : ` in ${this.netns}`);
    const views = members
      .filter((m) => m !== this.name)
      .map((m) => `${m}=${this.stateOf(m) ?? '?'}`)
      .join(' ');
    const tail = this.stderrLines.slice(-5).map((l) => `    stderr: ${l}`);
    const bad = this.badLines.slice(0, 3).map((b) => `    bad stdout (${b.problem}): ${b.text}`);
    return [`  ${this.name} @${this.address} ${state}; sees ${views}`, ...bad, ...tail].join('\n');
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Polls `condition` every `stepMs` until it holds or `timeoutMs` has passed; true when it held. Never
 * waits longer than `timeoutMs` plus one step.
 */
export async function waitUntil(condition: () => boolean, timeoutMs: number, stepMs = 20): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (condition()) return true;
    const left = deadline - performance.now();
    if (left <= 0) return false;
    await sleep(Math.min(stepMs, left));
  }
}

/** True when every agent reports every other one `alive`. */
export function converged(agents: readonly AgentProcess[]): boolean {
  return agents.every((a) => agents.every((b) => a === b || a.stateOf(b.name) === 'alive'));
}

/** The agents' state, for a failure message. */
export function describeAgents(agents: readonly AgentProcess[]): string {
  const names = agents.map((a) => a.name);
  return agents.map((a) => a.describe(names)).join('\n');
}

/**
 * What `agent` wrote on stderr that is not a pino JSON line below error level (50): the level of each
 * such line, or the line itself when it is not JSON. An agent that ran cleanly gives [].
 */
export function stderrBeyondWarnings(agent: AgentProcess): unknown[] {
  const levels = agent.stderrLines.map((l) => {
    try {
      return (JSON.parse(l) as { level?: unknown }).level;
    } catch {
      return l;
    }
  });
  return levels.filter((l) => typeof l !== 'number' || l >= 50);
}

/** Kills every agent and waits for each to end (bounded). */
export async function killAll(agents: readonly AgentProcess[]): Promise<void> {
  await Promise.all(agents.map((a) => a.kill()));
}

/** Options of {@link startCluster}. */
export interface ClusterOptions {
  /** Extra flags for every agent. */
  readonly args?: readonly string[];
  /** How long the cluster may take to converge, per attempt. */
  readonly convergeTimeoutMs?: number;
  /** Attempts when some port turns out to be taken. */
  readonly attempts?: number;
  /**
   * One namespace and address per name, and the port for all of them (each namespace has its own ports,
   * so one fixed port cannot be taken by anyone else); loopback and free ports when absent.
   */
  readonly placements?: { readonly hosts: readonly AgentPlacement[]; readonly port: number };
}

/**
 * Starts one agent per name on loopback, every one but the first joining through the first, and waits
 * until every agent reports every other one alive. When an agent exits because its port was taken in the
 * meantime, the whole cluster is killed and started again on new ports. Throws with every agent's state
 * when the cluster does not form.
 */
export async function startCluster(
  names: readonly string[],
  options: ClusterOptions = {},
): Promise<AgentProcess[]> {
  const attempts = options.attempts ?? 3;
  const timeoutMs = options.convergeTimeoutMs ?? 15_000;
  const placements = options.placements;
  if (placements !== undefined && placements.hosts.length !== names.length) {
    throw new Error(`startCluster: ${names.length} names but ${placements.hosts.length} placements`);
  }
  for (let attempt = 1; ; attempt++) {
    const ports = new Set<number>();
    if (placements === undefined) for (let i = 0; i < names.length; i++) ports.add(await freePort(ports));
    const list = [...ports];
    const extra = options.args ?? [];
    const start = (i: number, args: readonly string[]): AgentProcess =>
      placements === undefined
        ? new AgentProcess(names[i]!, list[i]!, args)
        : new AgentProcess(names[i]!, placements.port, args, placements.hosts[i]!);
    // The seed first: a member that finds its seed not yet listening retries only at its next
    // reconnect tick (up to reconnectIntervalMs, 10 s with lan, later), which would only slow the test.
    const first = start(0, extra);
    await waitUntil(() => !first.running || first.listening, timeoutMs, 50);
    const agents = [
      first,
      ...names.slice(1).map((_, i) => start(i + 1, ['--join', first.address, ...extra])),
    ];
    const formed = await waitUntil(() => converged(agents) || agents.some((a) => !a.running), timeoutMs);
    if (formed && converged(agents) && agents.every((a) => a.running)) return agents;
    const portTaken = agents.some(
      (a) => !a.running && a.stderrLines.some((l) => l.includes('already in use')),
    );
    const description = describeAgents(agents);
    await killAll(agents);
    if (!portTaken || attempt >= attempts) {
      throw new Error(`the cluster did not form (attempt ${attempt} of ${attempts}):\n${description}`);
    }
  }
}
