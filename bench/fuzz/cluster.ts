/**
 * The fuzzer's handle on its target: forks `cluster-child.ts` (three members, see there) with the tsx
 * loader and an IPC channel, waits for it to form, and asks it for status, marks, captures and its end.
 * Every request has a deadline; the child is killed (by its PID, through `endChild`) if it does not end.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { endChild } from '../support/end-child.js';
import type { Captures, ClusterReply, ClusterRequest, ClusterStatus, MemberStatus } from './protocol.js';

const CHILD = fileURLToPath(new URL('./cluster-child.ts', import.meta.url));
const REQUEST_TIMEOUT_MS = 30_000;
const READY_TIMEOUT_MS = 60_000;

/** How to start the cluster. */
export interface ClusterOptions {
  /** The members' shared key (32 bytes, hex); none when absent. */
  readonly keyringHex?: string;
  /** The members' `streamTimeoutMs`; their default (10 s) when absent. */
  readonly streamTimeoutMs?: number;
  /** The child's own end, whatever happens. */
  readonly lifetimeMs: number;
}

/** A running three-member cluster in a child process. */
export class FuzzCluster {
  private nextId = 1;
  private readonly pending = new Map<number, (reply: ClusterReply) => void>();
  private exitNote: string | undefined;

  private constructor(
    private readonly child: ChildProcess,
    /** The members' names, in order. */
    readonly names: readonly string[],
  ) {
    child.on('message', (raw: unknown) => {
      const message = raw as ClusterReply;
      const resolve = this.pending.get(message.id);
      if (resolve === undefined) return;
      this.pending.delete(message.id);
      resolve(message);
    });
    child.on('exit', (code, signal) => {
      this.exitNote = `exited with ${signal ?? code}`;
    });
  }

  /** Starts the child and resolves once its three members hold each other alive. */
  static start(options: ClusterOptions): Promise<FuzzCluster> {
    const args = ['--lifetime-ms', String(options.lifetimeMs)];
    if (options.keyringHex !== undefined) args.push('--keyring-hex', options.keyringHex);
    if (options.streamTimeoutMs !== undefined)
      args.push('--stream-timeout-ms', String(options.streamTimeoutMs));
    const child = fork(CHILD, args, {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`the fuzz cluster did not form within ${READY_TIMEOUT_MS} ms`));
      }, READY_TIMEOUT_MS);
      const onMessage = (raw: unknown): void => {
        const message = raw as ClusterReply;
        if (message.type !== 'ready' && message.type !== 'failed') return;
        clearTimeout(timer);
        child.off('message', onMessage);
        if (message.type === 'failed') {
          child.kill('SIGKILL');
          reject(new Error(`the fuzz cluster failed: ${message.message}`));
        } else {
          resolve(new FuzzCluster(child, message.names));
        }
      };
      child.on('message', onMessage);
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`the fuzz cluster exited with ${signal ?? code} before it formed`));
      });
    });
  }

  /** The child's PID, for /proc readings. */
  get pid(): number {
    return this.child.pid ?? 0;
  }

  /** Why the child is gone, or undefined while it runs. */
  get exited(): string | undefined {
    return this.exitNote;
  }

  private request<T extends ClusterReply>(type: ClusterRequest['type']): Promise<T> {
    if (this.exitNote !== undefined) return Promise.reject(new Error(`the fuzz cluster ${this.exitNote}`));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`the fuzz cluster did not answer ${type} within ${REQUEST_TIMEOUT_MS} ms`));
      }, REQUEST_TIMEOUT_MS);
      this.pending.set(id, (reply) => {
        clearTimeout(timer);
        resolve(reply as T);
      });
      this.child.send({ id, type });
    });
  }

  status(): Promise<ClusterStatus> {
    return this.request<ClusterStatus>('status');
  }

  /** Datagrams each member received so far, in the order of {@link names}: cheap, for pacing. */
  async received(): Promise<readonly number[]> {
    const reply = await this.request<ClusterReply>('received');
    return reply.type === 'received' ? reply.datagramsIn : [];
  }

  /** Starts counting state changes and event-loop delay afresh. */
  async mark(): Promise<void> {
    await this.request('mark');
  }

  captures(): Promise<Captures> {
    return this.request<Captures>('captures');
  }

  /** Shuts the members down and waits for the child to exit (killed after 10 s). */
  async close(): Promise<void> {
    await endChild(
      this.child,
      () => {
        this.request('exit').catch(() => this.child.kill('SIGKILL'));
      },
      10_000,
    );
  }
}

/** Whether every member holds every member of `names` alive. */
export function converged(members: readonly MemberStatus[], names: readonly string[]): boolean {
  return members.every((m) =>
    names.every((name) => m.view.some((held) => held.name === name && held.state === 'alive')),
  );
}
