/**
 * A pool of worker processes for CPU-bound bench work that is a pure function of a JSON spec (a seeded
 * simulation run): the entry point is started again with `--worker` (tsx's loader carried over), and
 * each worker takes a spec per line on stdin and answers with its record per line on stdout, one at a
 * time. With one job everything runs in this process. Results depend only on the specs, not on which
 * worker ran them or when.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/**
 * Runs specs with `work` in `jobs` worker processes. A spec not yet started when `deadline` (a
 * `performance.now()` time) passes is not started: it resolves to undefined.
 */
export class WorkerPool<S, R> {
  private readonly idle: Worker<S, R>[] = [];
  private readonly all: Worker<S, R>[] = [];
  private readonly waiting: {
    spec: S;
    resolve: (r: R | undefined) => void;
    reject: (e: Error) => void;
  }[] = [];

  /**
   * @param script - the entry point that serves `work` with `--worker` (see {@link serveWorker})
   * @param work - what a worker does with a spec; run here when `jobs` is 1
   */
  constructor(
    private readonly jobs: number,
    private readonly deadline: number,
    script: string,
    private readonly work: (spec: S) => R,
  ) {
    if (jobs > 1) {
      for (let i = 0; i < jobs; i++) {
        const w = new Worker<S, R>(script);
        this.all.push(w);
        this.idle.push(w);
      }
    }
  }

  run(spec: S): Promise<R | undefined> {
    if (this.jobs === 1) {
      if (performance.now() > this.deadline) return Promise.resolve(undefined);
      return new Promise((resolve) => setImmediate(() => resolve(this.work(spec))));
    }
    return new Promise((resolve, reject) => {
      this.waiting.push({ spec, resolve, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.idle.length > 0 && this.waiting.length > 0) {
      const job = this.waiting.shift()!;
      if (performance.now() > this.deadline) {
        job.resolve(undefined);
        continue;
      }
      const w = this.idle.pop()!;
      w.run(job.spec).then(
        (r) => {
          this.idle.push(w);
          job.resolve(r);
          this.dispatch();
        },
        (e: Error) => job.reject(e),
      );
    }
  }

  close(): void {
    for (const w of this.all) w.close();
  }
}

/** One worker process and the spec it is running. */
class Worker<S, R> {
  private readonly child: ChildProcess;
  private pending: { resolve: (r: R) => void; reject: (e: Error) => void } | undefined;

  constructor(script: string) {
    this.child = spawn(process.execPath, [...process.execArgv, script, '--worker'], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    createInterface({ input: this.child.stdout! }).on('line', (line) => {
      const p = this.pending;
      this.pending = undefined;
      p?.resolve(JSON.parse(line) as R);
    });
    this.child.on('exit', (code, signal) => {
      this.pending?.reject(new Error(`a worker ended with ${signal ?? `status ${code}`}`));
      this.pending = undefined;
    });
  }

  run(spec: S): Promise<R> {
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.child.stdin!.write(`${JSON.stringify(spec)}\n`);
    });
  }

  close(): void {
    this.child.stdin!.end();
  }
}

/** Worker side: a spec per line on stdin, `work`'s record per line on stdout, until stdin closes. */
export function serveWorker<S, R>(work: (spec: S) => R): void {
  createInterface({ input: process.stdin }).on('line', (line) => {
    process.stdout.write(`${JSON.stringify(work(JSON.parse(line) as S))}\n`);
  });
}
