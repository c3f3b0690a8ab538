/**
 * The Go memberlist member of the conformance tests (`test/wire/memberlist/go-agent/main.go`, on Debian's
 * memberlist 0.2.2): built offline, started on loopback with free ports, its stdout lines parsed into
 * typed events, driven by its stdin commands, and always ended by PID (an exit hook kills what a test
 * leaves behind). Every wait is bounded.
 *
 * The offline build is bench/peers/setup.ts's: Go 1.19 in GOPATH mode against Debian's source trees
 * under /usr/share/gocode, with the module proxy off, so that nothing reaches for the network. The
 * binary and Go's cache live in `$TMPDIR/fdkit-go-agent-build`, rebuilt when a Go file of the agent is
 * newer than the binary.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { killHard, killOnExit } from '../../support/child-cleanup.js';
import { freePort } from '../../support/free-port.js';
import { goBuildOffline } from '../../support/go-build.js';
import { type GoEvent, type GoMember, parseGoLine } from './go-agent-lines.js';

export type { GoEvent, GoMember, GoMemberEvent, GoMemberState } from './go-agent-lines.js';

const SOURCE_DIR = fileURLToPath(new URL('./go-agent/', import.meta.url));
const BUILD_DIR = join(tmpdir(), 'fdkit-go-agent-build');

/** How long the last {@link buildGoAgent} call took, and whether it compiled (false: cached binary). */
export const lastBuild = { ms: 0, compiled: false };

function newestSource(): number {
  return Math.max(
    ...readdirSync(SOURCE_DIR)
      .filter((f) => f.endsWith('.go'))
      .map((f) => statSync(join(SOURCE_DIR, f)).mtimeMs),
  );
}

/**
 * Builds the agent offline unless an up-to-date binary is there; returns its path. Two test workers may
 * build at once: each writes its own file and renames it into place. Throws with Go's output.
 */
export function buildGoAgent(): string {
  const binary = join(BUILD_DIR, 'go-agent');
  const started = performance.now();
  lastBuild.compiled = false;
  if (existsSync(binary) && statSync(binary).mtimeMs >= newestSource()) {
    lastBuild.ms = performance.now() - started;
    return binary;
  }
  mkdirSync(BUILD_DIR, { recursive: true });
  const own = `${binary}.${process.pid}`;
  goBuildOffline(SOURCE_DIR, own, BUILD_DIR, 'test/wire/memberlist/go-agent');
  renameSync(own, binary);
  lastBuild.ms = performance.now() - started;
  lastBuild.compiled = true;
  return binary;
}

/** A parsed stdout line and when the test read it (`performance.now()` of the test process). */
export interface GoReceived<E extends GoEvent = GoEvent> {
  readonly at: number;
  readonly event: E;
}

/** How the process ended. */
export interface GoExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly at: number;
}

/** The agent's flags. */
export interface GoAgentOptions {
  readonly name: string;
  /** Seeds, `host:port`. */
  readonly join?: readonly string[];
  /** Keyring keys (16, 24 or 32 bytes), the first primary; none: no encryption. */
  readonly keys?: readonly Uint8Array[];
  readonly meta?: Uint8Array;
  /** memberlist's DefaultLANConfig (the default) or DefaultLocalConfig. */
  readonly profile?: 'lan' | 'local';
  /** Hard end of the process, ms (default 5 minutes). */
  readonly lifetimeMs?: number;
  /** How long `ready` may take, ms (default 15 s). */
  readonly readyTimeoutMs?: number;
}

const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');

/** One running Go agent. Create with {@link GoAgent.start}. */
export class GoAgent {
  readonly name: string;
  readonly port: number;
  /** `127.0.0.1:port`, what others join. */
  readonly address: string;
  readonly child: ChildProcess;
  readonly events: GoReceived[] = [];
  /** Stdout lines that are not events, with the reason. */
  readonly badLines: { readonly text: string; readonly problem: string }[] = [];
  readonly stderrLines: string[] = [];
  exit: GoExit | undefined;
  readonly whenClosed: Promise<void>;
  private readonly listeners = new Set<() => void>();

  private constructor(binary: string, options: GoAgentOptions, port: number) {
    this.name = options.name;
    this.port = port;
    this.address = `127.0.0.1:${port}`;
    const args = ['-name', options.name, '-bind', '127.0.0.1', '-port', String(port)];
    if (options.join !== undefined && options.join.length > 0) args.push('-join', options.join.join(','));
    if (options.keys !== undefined && options.keys.length > 0)
      args.push('-keys', options.keys.map(b64).join(','));
    if (options.meta !== undefined) args.push('-meta', b64(options.meta));
    args.push('-profile', options.profile ?? 'lan', '-lifetime', `${options.lifetimeMs ?? 300_000}ms`);
    const child = spawn(binary, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child = child;
    killOnExit(child);
    // A write after the process ended must not become an uncaught error.
    child.stdin!.on('error', () => {});
    createInterface({ input: child.stdout!, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (text) => {
      const parsed = parseGoLine(text, options.name);
      if (typeof parsed === 'string') this.badLines.push({ text, problem: parsed });
      else this.events.push({ at: performance.now(), event: parsed });
      this.notify();
    });
    createInterface({ input: child.stderr!, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (text) => {
      this.stderrLines.push(text);
    });
    child.on('exit', (code, signal) => {
      this.exit = { code, signal, at: performance.now() };
      this.notify();
    });
    this.whenClosed = new Promise<void>((resolve) => {
      const done = (): void => {
        this.notify();
        resolve();
      };
      child.on('close', done);
      child.on('error', done);
    });
  }

  /**
   * Builds (when needed) and starts an agent on a free loopback port, and waits for its `ready` line.
   * When the port turns out to be taken, starts again on another (three attempts). The returned agent
   * may have failed to join: see its `ready` event's `error`.
   */
  static async start(options: GoAgentOptions): Promise<GoAgent> {
    const binary = buildGoAgent();
    for (let attempt = 1; ; attempt++) {
      const agent = new GoAgent(binary, options, await freePort());
      try {
        await agent.waitFor((e) => e.event === 'ready', options.readyTimeoutMs ?? 15_000);
        return agent;
      } catch (error) {
        const taken = agent.stdoutErrors().some((e) => e.includes('address already in use'));
        await agent.kill();
        if (!taken || attempt >= 3) throw error;
      }
    }
  }

  private notify(): void {
    for (const l of [...this.listeners]) l();
  }

  /** True while the process has not exited. */
  get running(): boolean {
    return this.exit === undefined;
  }

  /** The `ready` event. */
  get ready(): Extract<GoEvent, { event: 'ready' }> | undefined {
    for (const r of this.events) if (r.event.event === 'ready') return r.event;
    return undefined;
  }

  /** The index the next event will have: pass it to {@link GoAgent.waitFor} to wait for later ones. */
  mark(): number {
    return this.events.length;
  }

  /**
   * The first event at index `from` or later that satisfies `predicate`, waiting at most `timeoutMs`.
   * Rejects, with what the agent printed, on timeout or when the process ends without one.
   */
  waitFor<E extends GoEvent>(
    predicate: ((e: GoEvent) => e is E) | ((e: GoEvent) => boolean),
    timeoutMs: number,
    from = 0,
  ): Promise<GoReceived<E>> {
    return new Promise((resolve, reject) => {
      let next = from;
      const finish = (outcome: GoReceived<E> | Error): void => {
        clearTimeout(timer);
        this.listeners.delete(check);
        if (outcome instanceof Error) reject(outcome);
        else resolve(outcome);
      };
      const check = (): void => {
        for (; next < this.events.length; next++) {
          const r = this.events[next]!;
          if (predicate(r.event)) {
            finish(r as GoReceived<E>);
            return;
          }
        }
        if (!this.running)
          finish(new Error(`${this.name} ended before the awaited event\n${this.describe()}`));
      };
      const timer = setTimeout(
        () => finish(new Error(`${this.name}: no awaited event within ${timeoutMs} ms\n${this.describe()}`)),
        timeoutMs,
      );
      this.listeners.add(check);
      check();
    });
  }

  /** Writes one command line to the agent's stdin. */
  command(line: string): void {
    if (this.child.stdin?.writable) this.child.stdin.write(`${line}\n`);
  }

  /**
   * Runs a command that answers `ack` (meta, broadcast, send, reliable) and waits for the answer;
   * rejects with the agent's error.
   */
  async request(line: string, timeoutMs = 10_000): Promise<void> {
    const command = line.split(' ')[0]!;
    const from = this.mark();
    this.command(line);
    const r = await this.waitFor(
      (e) => (e.event === 'ack' || e.event === 'error') && e.command === command,
      timeoutMs,
      from,
    );
    if (r.event.event === 'error') throw new Error(`${this.name}: ${line}: ${r.event.error}`);
  }

  /** Sets the metadata and waits for UpdateNode to return. */
  setMeta(meta: Uint8Array): Promise<void> {
    return this.request(`meta ${b64(meta)}`);
  }

  /** Queues a user broadcast. */
  broadcast(payload: Uint8Array): Promise<void> {
    return this.request(`broadcast ${b64(payload)}`);
  }

  /** SendBestEffort (`reliable` false) or SendReliable to the live member `to`. */
  send(to: string, payload: Uint8Array, reliable = false): Promise<void> {
    return this.request(`${reliable ? 'reliable' : 'send'} ${to} ${b64(payload)}`);
  }

  /** memberlist's live members (alive or suspect), as the agent reports them. */
  async members(timeoutMs = 5000): Promise<readonly GoMember[]> {
    const from = this.mark();
    this.command('members');
    const r = await this.waitFor((e) => e.event === 'members', timeoutMs, from);
    return r.event.event === 'members' ? r.event.members : [];
  }

  /** Leave(timeout): waits for `left`. */
  async leave(timeoutMs = 10_000): Promise<void> {
    const from = this.mark();
    this.command('leave');
    await this.waitFor(
      (e) => e.event === 'left' || (e.event === 'error' && e.command === 'leave'),
      timeoutMs,
      from,
    );
  }

  /** The state this agent last reported for `member` from its EventDelegate. */
  stateOf(member: string): string | undefined {
    for (let i = this.events.length - 1; i >= 0; i--) {
      const e = this.events[i]!.event;
      if ((e.event === 'join' || e.event === 'leave') && e.member === member) return e.state;
    }
    return undefined;
  }

  /** The error texts of the agent's `error` lines. */
  stdoutErrors(): string[] {
    return this.events.flatMap((r) => (r.event.event === 'error' ? [r.event.error] : []));
  }

  signal(signal: NodeJS.Signals): void {
    if (this.running) this.child.kill(signal);
  }

  /** SIGKILL, without continuing first: the crash the others must detect. */
  kill9(): void {
    this.signal('SIGKILL');
  }

  /** SIGSTOP: the process freezes, sockets and all. */
  stop(): void {
    this.signal('SIGSTOP');
  }

  /** SIGCONT. */
  cont(): void {
    this.signal('SIGCONT');
  }

  /** Kills the process (continuing it first if stopped) and waits, at most `timeoutMs`, for its end. */
  async kill(timeoutMs = 5000): Promise<void> {
    killHard(this.child);
    await this.closed(timeoutMs);
  }

  /** Closes stdin (the agent leaves and exits), then kills whatever is left after `timeoutMs`. */
  async close(timeoutMs = 10_000): Promise<void> {
    this.child.stdin?.end();
    if (!(await this.closed(timeoutMs))) await this.kill();
  }

  private async closed(timeoutMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    const ended = await Promise.race([this.whenClosed.then(() => true), timeout]);
    clearTimeout(timer);
    return ended;
  }

  /** What the agent printed, for a failure message. */
  describe(): string {
    const state = this.running ? 'running' : `exited code=${this.exit?.code} signal=${this.exit?.signal}`;
    const tail = this.events.slice(-8).map((r) => `    ${JSON.stringify(r.event)}`);
    const bad = this.badLines.slice(0, 3).map((b) => `    bad stdout (${b.problem}): ${b.text}`);
    const err = this.stderrLines.slice(-5).map((l) => `    stderr: ${l}`);
    return [`  ${this.name} @${this.address} ${state}`, ...tail, ...bad, ...err].join('\n');
  }
}

/** True when every agent's EventDelegate reported every other agent alive. */
export function goConverged(agents: readonly GoAgent[]): boolean {
  return agents.every((a) => agents.every((b) => a === b || a.stateOf(b.name) === 'alive'));
}

/**
 * Starts one agent per name, each but the first joining the first, and waits at most `timeoutMs` until
 * every one sees every other alive. Throws, after killing them, when the cluster does not form.
 */
export async function startGoCluster(
  names: readonly string[],
  options: Omit<GoAgentOptions, 'name' | 'join'> = {},
  timeoutMs = 15_000,
): Promise<GoAgent[]> {
  const agents: GoAgent[] = [];
  try {
    agents.push(await GoAgent.start({ ...options, name: names[0]! }));
    for (const name of names.slice(1)) {
      agents.push(await GoAgent.start({ ...options, name, join: [agents[0]!.address] }));
    }
    const deadline = performance.now() + timeoutMs;
    while (!goConverged(agents)) {
      if (performance.now() > deadline) {
        throw new Error(`the Go cluster did not form:\n${agents.map((a) => a.describe()).join('\n')}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return agents;
  } catch (error) {
    await Promise.all(agents.map((a) => a.kill()));
    throw error;
  }
}
