/**
 * Members of the three systems as processes on 127.0.0.1, and a cluster of each: how each is started,
 * how its output becomes events (bench/peers/events.ts), signals, readiness, convergence, cleanup.
 *
 * Every member runs under coreutils' `timeout -s KILL`, so that none outlives the bench even when the
 * bench itself is killed with SIGKILL; the member's own pid (the child of `timeout`) is the one that gets
 * SIGKILL/SIGSTOP/SIGCONT and whose CPU is read. Every member binds UDP and TCP on one port of a range of
 * its system's own (bench/peers/nft.ts counts traffic by port).
 *
 * How each system is started (all at their `lan` defaults: probe 1 s, probe timeout 500 ms, suspicion
 * multiplier 4, suspicion max-timeout multiplier 6, 3 indirect checks, gossip every 200 ms to 3,
 * retransmit multiplier 4, push-pull every 30 s):
 * - fdkit: `node dist/cli/main.js agent --name N --bind 127.0.0.1:P --profile lan --log-level warn
 *   [--join 127.0.0.1:S]`;
 * - Serf: `serf agent -node N -bind 127.0.0.1:P -rpc-addr 127.0.0.1:R -profile lan -log-level info
 *   [-retry-join 127.0.0.1:S -retry-interval 1s]` (Serf's lan profile is memberlist.DefaultLANConfig();
 *   the RPC port is never used by the bench, and is outside the counted ports);
 * - memberlist: `memberlist-agent -name N -bind 127.0.0.1 -port P [-join 127.0.0.1:S]` at
 *   memberlist.DefaultLANConfig().
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { sleep } from '../support/report.js';
import { convergedView, type PeerEvent, parserFor, type SystemName } from './events.js';
import { childrenOf } from './proc.js';

/** Where each system's member ports start (below Linux's ephemeral range, 32768 and up). */
export const PORT_BASE: Readonly<Record<SystemName, number>> = {
  fdkit: 21000,
  serf: 22000,
  memberlist: 24000,
};
/** Serf's RPC ports (not counted). */
const SERF_RPC_BASE = 23000;
const PORT_SPAN = 1000;

/** What starting a member of each system needs from outside. */
export interface Launch {
  /** Compiled fdkit CLI (`dist/cli/main.js`). */
  readonly fdkitCli: string;
  /** The built memberlist agent. */
  readonly memberlistAgent: string;
  /** Every member is killed by `timeout` after this many seconds. */
  readonly lifetimeS: number;
}

const live = new Set<Member>();
/** Set once the bench stops every member: exits after that are expected. */
let stopping = false;
/** Told of each member that exits while the bench did not mean it to (a crash, or a kill from outside). */
let onUnexpectedExit: ((m: Member) => void) | undefined;

/** Tells `listener` of each member that exits without the bench having killed it. */
export function watchUnexpectedExits(listener: (m: Member) => void): void {
  onUnexpectedExit = listener;
}

/** Kills every member still running (SIGCONT first, so that a stopped one dies too). */
export function killEveryMember(): void {
  stopping = true;
  for (const m of live) m.killNow();
}

/** One member process. */
export class Member {
  readonly wrapper: ChildProcess;
  /** The member's own pid (the child of `timeout`), once known. */
  pid: number | undefined;
  readonly stderrTail: string[] = [];
  exited = false;
  /** How it ended (the status of its `timeout` wrapper, which passes the member's on). */
  exitStatus: string | undefined;
  /** Set once the bench killed it on purpose. */
  killed = false;

  constructor(
    readonly system: SystemName,
    readonly name: string,
    readonly port: number,
    command: string,
    args: readonly string[],
    lifetimeS: number,
    onEvent: (e: PeerEvent) => void,
  ) {
    const parse = parserFor(system);
    this.wrapper = spawn('timeout', ['-s', 'KILL', String(Math.ceil(lifetimeS)), command, ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    live.add(this);
    this.wrapper.stdin!.on('error', () => {});
    const lines = (stream: NodeJS.ReadableStream, onLine: (text: string) => void): void => {
      createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY }).on('line', onLine);
    };
    lines(this.wrapper.stdout!, (text) => {
      const atMs = performance.now();
      const parsed = parse(text, name);
      if (parsed !== undefined) onEvent({ atMs, ...parsed });
      else if (system === 'serf') this.tail(text);
    });
    lines(this.wrapper.stderr!, (text) => this.tail(text));
    this.wrapper.on('exit', (code, signal) => {
      this.exited = true;
      this.exitStatus = signal ?? `code ${code}`;
      live.delete(this);
      // `close` follows once stdout and stderr are read to the end: the last words are in the tail then
      // (unless the member outlives its wrapper and holds them open: a second at most).
      let told = false;
      const tell = (): void => {
        if (told) return;
        told = true;
        if (!this.killed && !stopping) onUnexpectedExit?.(this);
      };
      this.wrapper.once('close', tell);
      setTimeout(tell, 1000).unref();
    });
    this.wrapper.on('error', (error) => {
      this.exited = true;
      live.delete(this);
      this.tail(`spawn failed: ${error.message}`);
    });
  }

  private tail(text: string): void {
    this.stderrTail.push(text);
    if (this.stderrTail.length > 20) this.stderrTail.shift();
  }

  /** Waits (bounded) until the member's own process exists under `timeout`; returns its pid. */
  async resolvePid(timeoutMs = 5000): Promise<number> {
    const deadline = performance.now() + timeoutMs;
    while (this.pid === undefined) {
      if (this.exited) throw new Error(`${this.name} exited at once: ${this.stderrTail.join(' | ')}`);
      const wrapperPid = this.wrapper.pid;
      const child = wrapperPid === undefined ? undefined : childrenOf(wrapperPid)[0];
      if (child !== undefined) this.pid = child;
      else if (performance.now() > deadline) throw new Error(`${this.name}: no process under timeout`);
      else await sleep(10);
    }
    return this.pid;
  }

  /** Sends `signal` to the member's own process. */
  signal(signal: NodeJS.Signals): void {
    if (this.pid === undefined || this.exited) return;
    try {
      process.kill(this.pid, signal);
    } catch {
      // Already gone.
    }
  }

  /**
   * Kills the member and its wrapper at once, whatever state it is in. The member's own process is
   * killed even when its wrapper is gone already (killed from outside, it leaves the member orphaned),
   * once its command line shows that the pid is still this member's.
   */
  killNow(): void {
    if (this.pid !== undefined && this.stillOurs()) {
      for (const signal of ['SIGCONT', 'SIGKILL'] as const) {
        try {
          process.kill(this.pid, signal);
        } catch {
          // Gone in the meantime.
        }
      }
    }
    if (!this.exited) this.wrapper.kill('SIGKILL');
  }

  private stillOurs(): boolean {
    try {
      const cmdline = readFileSync(`/proc/${this.pid}/cmdline`, 'utf8');
      return cmdline.includes(this.name) && cmdline.includes(String(this.port));
    } catch {
      return false;
    }
  }

  /** True when a TCP connection to its port is accepted (it is serving). */
  accepts(): Promise<boolean> {
    return new Promise((resolve) => {
      const socket = connect({ host: '127.0.0.1', port: this.port }, () => {
        socket.end();
        resolve(true);
      });
      socket.setTimeout(1000, () => socket.destroy());
      socket.on('error', () => resolve(false));
      socket.on('close', () => resolve(false));
    });
  }
}

/** Whether `port` on 127.0.0.1 is free for TCP and for UDP right now. */
async function portFree(port: number): Promise<boolean> {
  const tcp = await new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
  if (!tcp) return false;
  return new Promise<boolean>((resolve) => {
    const socket = createSocket('udp4');
    socket.once('error', () => {
      socket.close();
      resolve(false);
    });
    socket.bind(port, '127.0.0.1', () => socket.close(() => resolve(true)));
  });
}

/** Hands out free ports from each system's range, never the same one twice. */
export class PortPool {
  private readonly next = new Map<number, number>();

  async take(base: number): Promise<number> {
    for (let port = this.next.get(base) ?? base; port < base + PORT_SPAN; port++) {
      if (await portFree(port)) {
        this.next.set(base, port + 1);
        return port;
      }
    }
    throw new Error(`no free port in ${base}..${base + PORT_SPAN - 1}`);
  }
}

/** The members of one system, their events, and how to add one. */
export class Cluster {
  readonly members: Member[] = [];
  readonly events: PeerEvent[] = [];
  private started = 0;

  constructor(
    readonly system: SystemName,
    private readonly launch: Launch,
    private readonly ports: PortPool,
    /** Called with the ports of each new member (the byte counters). */
    private readonly onPorts: (ports: readonly number[]) => void,
  ) {}

  /** Members running now (not killed by the bench, not exited). */
  running(): Member[] {
    return this.members.filter((m) => !m.killed && !m.exited);
  }

  /** Starts one member joining `seed` (none for the first); resolves once it serves on its port. */
  async add(seed: Member | undefined, readyTimeoutMs = 20_000): Promise<Member> {
    const index = ++this.started;
    // The same names in the three clusters (each is a cluster of its own), so that messages that carry
    // names weigh the same: hostname-like, 21 characters, as bench/cluster-load.ts names its members.
    const name = `member-${String(index).padStart(2, '0')}.bench.local`;
    const port = await this.ports.take(PORT_BASE[this.system]);
    this.onPorts([port]);
    const join = seed === undefined ? undefined : `127.0.0.1:${seed.port}`;
    let command: string;
    let args: string[];
    switch (this.system) {
      case 'fdkit':
        command = process.execPath;
        args = [this.launch.fdkitCli, 'agent', '--name', name, '--bind', `127.0.0.1:${port}`];
        args.push('--profile', 'lan', '--log-level', 'warn');
        if (join !== undefined) args.push('--join', join);
        break;
      case 'serf': {
        const rpc = await this.ports.take(SERF_RPC_BASE);
        command = 'serf';
        args = ['agent', '-node', name, '-bind', `127.0.0.1:${port}`, '-rpc-addr', `127.0.0.1:${rpc}`];
        args.push('-profile', 'lan', '-log-level', 'info');
        if (join !== undefined) args.push('-retry-join', join, '-retry-interval', '1s');
        break;
      }
      case 'memberlist':
        command = this.launch.memberlistAgent;
        args = ['-name', name, '-bind', '127.0.0.1', '-port', String(port)];
        args.push('-lifetime', `${Math.ceil(this.launch.lifetimeS)}s`);
        if (join !== undefined) args.push('-join', join);
        break;
    }
    const member = new Member(this.system, name, port, command, args, this.launch.lifetimeS, (e) =>
      this.events.push(e),
    );
    this.members.push(member);
    await member.resolvePid();
    const deadline = performance.now() + readyTimeoutMs;
    while (!(await member.accepts())) {
      if (member.exited) throw new Error(`${name} exited: ${member.stderrTail.join(' | ')}`);
      if (performance.now() > deadline) throw new Error(`${name} does not serve on ${port}`);
      await sleep(50);
    }
    return member;
  }

  /** Starts `n` members: the first, then the others joining it. */
  async start(n: number): Promise<void> {
    const seed = await this.add(undefined);
    for (let i = 1; i < n; i++) await this.add(seed);
  }

  /** True when every running member holds every other running member alive. */
  converged(): boolean {
    return convergedView(
      this.events,
      this.running().map((m) => m.name),
    );
  }

  /** Who sees whom how, for an error message. */
  describe(): string {
    const names = this.running().map((m) => m.name);
    return this.running()
      .map((m) => {
        const seen = new Map<string, string>();
        for (const e of this.events) {
          if (e.observer === m.name && e.kind !== 'refute' && e.kind !== 'suspect')
            seen.set(e.member, e.kind);
        }
        const view = names
          .filter((n) => n !== m.name)
          .map((n) => `${n}=${seen.get(n) ?? '?'}`)
          .join(' ');
        return `  ${m.name} sees ${view}${m.stderrTail.length > 0 ? ` (last: ${m.stderrTail.at(-1)})` : ''}`;
      })
      .join('\n');
  }

  /** Kills every member (after the measurements: no one needs a graceful leave). */
  stop(): void {
    for (const m of this.members) {
      m.killed = true;
      m.killNow();
    }
  }
}
