/**
 * CPU time and memory of any process, from /proc, the same way for a Node.js member, a Serf agent and a
 * Go memberlist agent (`process.cpuUsage()` only sees the process that calls it).
 *
 * CPU time is the sum over the process's threads of the first field of `/proc/PID/task/TID/schedstat`:
 * nanoseconds on a CPU, exact. `/proc/PID/stat` (utime + stime) also counts threads that already exited,
 * but only in clock ticks (10 ms), too coarse for a member that uses a few hundred milliseconds a
 * minute; it is read as well, as a check: a sample notes when the two disagree by more than a tick per
 * second of window (a thread that ended inside the window).
 */
import { readdirSync, readFileSync } from 'node:fs';

/** One reading of a process. */
export interface ProcSample {
  readonly pid: number;
  /** Monotonic ms of the bench when read. */
  readonly atMs: number;
  /** Sum of the threads' run time, ns. */
  readonly runNs: number;
  /** utime + stime of /proc/PID/stat, converted to ns (10 ms ticks). */
  readonly statNs: number;
  readonly threads: number;
  readonly rssBytes: number;
}

const TICK_NS = 10_000_000;

/** Reads `pid`; undefined when the process is gone. */
export function readProc(pid: number, atMs: number): ProcSample | undefined {
  try {
    let runNs = 0;
    let threads = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        runNs += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
        threads++;
      } catch {
        // The thread ended between the listing and the read.
      }
    }
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    return { pid, atMs, runNs, statNs: ticks * TICK_NS, threads, rssBytes: rssKb * 1024 };
  } catch {
    return undefined;
  }
}

/** CPU share of one core between two samples of the same process, in percent. */
export function cpuPercent(a: ProcSample, b: ProcSample): number {
  return ((b.runNs - a.runNs) / 1e6 / (b.atMs - a.atMs)) * 100;
}

/** True when schedstat and stat disagree by more than one tick per second (a thread exited). */
export function threadTimeLost(a: ProcSample, b: ProcSample): boolean {
  const run = b.runNs - a.runNs;
  const stat = b.statNs - a.statNs;
  const seconds = (b.atMs - a.atMs) / 1000;
  return stat - run > TICK_NS * Math.max(2, seconds);
}

/** The children of `pid` (from /proc/PID/task/PID/children). */
export function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter((x) => x !== '')
      .map(Number);
  } catch {
    return [];
  }
}
