/**
 * The member processes of `fdkit demo`: forked from `member.js` with an IPC channel, their messages
 * checked and handed on, their stderr kept for a failure message, and their ends tracked. Nothing is left
 * behind: {@link MemberProcesses.close} continues a stopped member and ends every one (by closing its
 * channel, then SIGKILL), with a bounded wait, and {@link MemberProcesses.killNow} is the synchronous last
 * resort for a demo that exits abruptly.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Clock } from '../../runtime/clock.js';
import { type MemberMessage, parseMemberMessage } from './messages.js';

/** What the processes report to the demo. */
export interface MemberProcessHandlers {
  readonly message: (name: string, message: MemberMessage) => void;
  readonly exit: (name: string, code: number | null, signal: NodeJS.Signals | null) => void;
}

/** Stderr lines kept per member, for a failure message. */
const STDERR_KEPT = 20;
/** How often a bounded wait for processes to end looks again. */
const POLL_MS = 20;

interface Member {
  readonly child: ChildProcess;
  readonly stderr: string[];
  ended: boolean;
}

/** The demo's member processes. */
export class MemberProcesses {
  private readonly members = new Map<string, Member>();
  private readonly script = new URL('./member.js', import.meta.url);

  constructor(
    private readonly clock: Clock,
    private readonly handlers: MemberProcessHandlers,
  ) {}

  /** Forks member `name` with `args` after its name; returns its pid (undefined if the fork failed). */
  spawn(name: string, args: readonly string[]): number | undefined {
    const child = fork(this.script, [name, ...args], {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'advanced',
    });
    const member: Member = { child, stderr: [], ended: false };
    this.members.set(name, member);
    child.on('message', (value: unknown) => {
      const message = parseMemberMessage(value);
      if (message === undefined) member.stderr.push(`(unreadable IPC message: ${String(value)})`);
      else this.handlers.message(name, message);
    });
    createInterface({ input: child.stderr!, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) => {
      member.stderr.push(line);
      if (member.stderr.length > STDERR_KEPT) member.stderr.shift();
    });
    const ended = (code: number | null, signal: NodeJS.Signals | null): void => {
      if (member.ended) return;
      member.ended = true;
      this.handlers.exit(name, code, signal);
    };
    child.on('exit', ended);
    child.on('error', (error) => {
      // The fork itself failed: 'exit' may never come.
      member.stderr.push(error.message);
      if (child.pid === undefined) ended(null, null);
    });
    return child.pid;
  }

  /** Sends `signal` to member `name`; false when it has ended. */
  signal(name: string, signal: NodeJS.Signals): boolean {
    const member = this.members.get(name);
    if (member === undefined || member.ended) return false;
    return member.child.kill(signal);
  }

  /** The last lines member `name` wrote on stderr. */
  stderrTail(name: string): readonly string[] {
    return this.members.get(name)?.stderr ?? [];
  }

  /** Whether every forked member has ended. */
  get allEnded(): boolean {
    return [...this.members.values()].every((m) => m.ended);
  }

  /**
   * Ends every member: continues a stopped one, closes its channel (it shuts its node down and exits),
   * and kills with SIGKILL whatever has not ended after half of `timeoutMs`; resolves once all ended or
   * `timeoutMs` passed.
   */
  async close(timeoutMs: number): Promise<void> {
    const live = [...this.members.values()].filter((m) => !m.ended);
    for (const m of live) {
      m.child.kill('SIGCONT');
      if (m.child.connected) m.child.disconnect();
    }
    const deadline = this.clock.now() + timeoutMs;
    await this.waitEnded(deadline - timeoutMs / 2);
    for (const m of live) if (!m.ended) m.child.kill('SIGKILL');
    await this.waitEnded(deadline);
  }

  /** Kills every member at once, synchronously: for a process that is exiting. */
  killNow(): void {
    for (const m of this.members.values()) {
      if (m.ended) continue;
      m.child.kill('SIGCONT');
      m.child.kill('SIGKILL');
    }
  }

  private async waitEnded(deadline: number): Promise<void> {
    while (!this.allEnded && this.clock.now() < deadline) {
      await new Promise<void>((resolve) => this.clock.setTimer(POLL_MS, resolve));
    }
  }
}
