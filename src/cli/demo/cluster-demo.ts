/**
 * `fdkit demo`: a live cluster of member processes on 127.0.0.1 that shows a crash, the leader hint
 * moving off the killed leader, and a pause with its refutation. It forks the members, forms the
 * cluster, sends SIGKILL to the leader and SIGSTOP then SIGCONT to another, and prints a timeline and a
 * summary of what the others saw. This file is the orchestration:
 * bounded waits on the pure predicates of `milestones.ts`, signals to the processes, and output. It never
 * leaves a member behind: every way out (the end, a failure, SIGINT or SIGTERM, an exception, the process
 * exiting) ends them.
 */
import type { Clock } from '../../runtime/clock.js';
import { profiles } from '../../swim/profiles.js';
import { expectedTiming } from '../../swim/timing.js';
import { SHOW_CURSOR } from './ansi.js';
import { ClusterView } from './cluster-view.js';
import { describeLeaderChange, describeObservation, listNames, seconds } from './format.js';
import { measureCrash, measureLeaderMove } from './measure.js';
import type { MemberMessage } from './messages.js';
import {
  agreedLeader,
  backFromPause,
  describeViews,
  formed,
  healthy,
  heldDead,
  running,
  suspected,
} from './milestones.js';
import { type DemoOutput, LiveOutput, PlainOutput, type Terminal } from './output.js';
import { MemberProcesses } from './processes.js';
import { reportLines } from './report.js';
import type { DemoScenario } from './scenario.js';

/** How `fdkit demo` runs and where it writes. */
export interface ClusterDemoOptions {
  readonly scenario: DemoScenario;
  readonly clock: Clock;
  /** Plain lines through `write`, or a live screen on `terminal`. */
  readonly output:
    | { readonly kind: 'plain'; readonly write: (line: string) => void }
    | { readonly kind: 'live'; readonly terminal: Terminal; readonly colour: boolean };
  /** Receives a failure's explanation, line by line (stderr). */
  readonly error: (line: string) => void;
  /** Stops the demo early (its members too); the reason's message is the explanation. */
  readonly signal?: AbortSignal;
  /**
   * `host:port` where the seed, which the scenario neither kills nor pauses, serves the HTTP API and
   * the status page for as long as the demo runs (`fdkit demo --http`).
   */
  readonly http?: string;
}

/** How often a bounded wait looks again. */
const POLL_MS = 50;

/** Ends the demo early with an exit status and an explanation. */
class DemoAbort extends Error {
  constructor(
    readonly status: number,
    readonly lines: readonly string[],
  ) {
    super(lines[0]);
  }
}

const SIGNAL_STATUS: Readonly<Record<'SIGINT' | 'SIGTERM', number>> = { SIGINT: 130, SIGTERM: 143 };

/** Runs the demo to its end; resolves with the exit status (0 when the scenario ran through). */
export async function runClusterDemo(options: ClusterDemoOptions): Promise<number> {
  const { scenario: s, clock } = options;
  const startMs = clock.now();
  const startWallMs = clock.wallNow();
  const now = (): number => clock.now() - startMs;
  const view = new ClusterView(s.names);
  const config = profiles[s.profile];
  const timing = expectedTiming(config, s.names.length);
  const title = `fdkit demo: ${s.names.length} member processes on 127.0.0.1, profile ${s.profile}`;
  const out: DemoOutput =
    options.output.kind === 'plain'
      ? new PlainOutput(view, options.output.write)
      : new LiveOutput(view, options.output.terminal, clock, {
          title,
          now,
          colour: options.output.colour,
        });

  let failure: DemoAbort | undefined;
  let stopping = false;
  const processes = new MemberProcesses(clock, {
    message: (name, message) => receive(name, message),
    exit: (name, code, signal) => {
      const expected = view.member(name).process === 'killed' || stopping;
      view.exited(name);
      if (stopping) return;
      out.note(now(), `${name} exited (${signal ?? `code ${code}`})`);
      if (!expected) {
        failure ??= new DemoAbort(1, [
          `fdkit demo: member ${name} exited unexpectedly (${signal ?? `code ${code}`})`,
          ...processes.stderrTail(name).map((l) => `  ${name} stderr: ${l}`),
        ]);
      }
    },
  });

  function receive(name: string, message: MemberMessage): void {
    switch (message.kind) {
      case 'ready':
        view.ready(name, message.address);
        out.note(now(), `${name} listening on ${message.address} (pid ${view.member(name).pid})`);
        if (message.http !== undefined) out.note(now(), `status page of ${name}: ${message.http}/`);
        return;
      case 'event': {
        const o = view.event(name, message, message.wallMs - startWallMs);
        if (o !== undefined) out.note(o.atMs, describeObservation(o));
        return;
      }
      case 'leader': {
        const o = view.leader(name, message, message.wallMs - startWallMs);
        if (o !== undefined) out.note(o.atMs, describeLeaderChange(o));
        return;
      }
      case 'status':
        for (const o of view.status(name, message, message.wallMs - startWallMs, now())) {
          out.note(o.atMs, describeObservation(o));
        }
        return;
    }
  }

  let interrupted: 'SIGINT' | 'SIGTERM' | undefined;
  const onSignal = (signal: 'SIGINT' | 'SIGTERM'): void => {
    if (interrupted !== undefined) {
      // A second signal while the members are being stopped: stop waiting.
      processes.killNow();
      process.exit(SIGNAL_STATUS[signal]);
    }
    interrupted = signal;
  };
  const onExit = (): void => {
    processes.killNow();
    if (options.output.kind === 'live') options.output.terminal.write(SHOW_CURSOR);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('exit', onExit);

  /** Waits until `condition` holds (true) or `timeoutMs` passed (false); throws on a failure or signal. */
  async function waitFor(condition: () => boolean, timeoutMs: number): Promise<boolean> {
    const deadline = clock.now() + timeoutMs;
    for (;;) {
      if (interrupted !== undefined) {
        throw new DemoAbort(SIGNAL_STATUS[interrupted], [`fdkit demo: stopped by ${interrupted}`]);
      }
      if (failure !== undefined) throw failure;
      if (options.signal?.aborted === true) {
        const reason: unknown = options.signal.reason;
        throw new DemoAbort(1, [
          `fdkit demo: stopped: ${reason instanceof Error ? reason.message : String(reason)}`,
        ]);
      }
      if (condition()) return true;
      const left = deadline - clock.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => clock.setTimer(Math.min(POLL_MS, left), resolve));
    }
  }
  const hold = async (ms: number): Promise<void> => {
    await waitFor(() => false, ms);
  };
  const sendSignal = (sig: 'SIGKILL' | 'SIGSTOP' | 'SIGCONT', member: string): void => {
    view.fault(sig, member, now());
    processes.signal(member, sig);
    out.note(now(), `${sig} ${member}${sig === 'SIGKILL' ? ` (pid ${view.member(member).pid})` : ''}`);
  };

  let exitStatus = 0;
  let aborted = false;
  // Explanations for stderr, written once the screen is done with.
  const problems: string[] = [];
  try {
    out.note(
      now(),
      `${title} (probe every ${config.probeIntervalMs} ms, suspicion timeout ` +
        `${seconds(timing.suspicionMinMs, 1)} to ${seconds(timing.suspicionMaxMs, 1)})`,
    );
    out.note(
      now(),
      `plan: form the cluster (priorities ${[...s.names]
        .sort((a, b) => (s.priorities[b] ?? 0) - (s.priorities[a] ?? 0))
        .map((n) => `${n} ${s.priorities[n]}`)
        .join(', ')}: ` +
        `the highest leads), SIGKILL ${s.killed}, the leader, SIGSTOP ${s.paused} for ` +
        `${seconds(s.pauseMinMs, 1)} or until it is suspected, then report`,
    );
    await formCluster();

    out.phase(now(), `steady: a healthy cluster for ${seconds(s.steadyMs, 1)}`);
    await hold(s.steadyMs);

    out.phase(
      now(),
      `crash: SIGKILL ${s.killed}, the leader; waiting until every survivor holds it dead and names a new leader`,
    );
    sendSignal('SIGKILL', s.killed);
    const newLeader = (): boolean => {
      const leader = agreedLeader(view);
      return leader !== undefined && leader !== s.killed;
    };
    const detected = await waitFor(() => heldDead(view, s.killed) && newLeader(), s.crashTimeoutMs);
    const crash = measureCrash(view, s.killed);
    const move = measureLeaderMove(view, s.killed);
    if (detected && crash?.allDeadMs !== undefined) {
      out.note(now(), `every survivor holds ${s.killed} dead, ${seconds(crash.allDeadMs)} after the SIGKILL`);
    } else {
      exitStatus = 1;
      problems.push(
        `fdkit demo: not every survivor held ${s.killed} dead within ${seconds(s.crashTimeoutMs, 1)} of the SIGKILL`,
      );
    }
    if (move?.leader !== undefined && move.allMs !== undefined && newLeader()) {
      out.note(
        now(),
        `every survivor names ${move.leader} leader, ${seconds(move.allMs)} after the SIGKILL of ${s.killed}`,
      );
    } else {
      exitStatus = 1;
      problems.push(
        `fdkit demo: the survivors did not agree on a new leader within ${seconds(s.crashTimeoutMs, 1)} of the SIGKILL: ` +
          running(view)
            .map((n) => `${n} names ${view.member(n).leader ?? '?'}`)
            .join(', '),
      );
    }
    out.table(now());
    await hold(s.lingerMs);

    if (!healthy(view)) {
      out.phase(now(), "waiting for the survivors' local health to return to 0 before the pause");
      if (!(await waitFor(() => healthy(view), s.healthTimeoutMs))) {
        out.note(now(), `local health not back to 0 within ${seconds(s.healthTimeoutMs, 1)}; pausing anyway`);
      }
    }

    await pauseAndResume();
    out.phase(now(), 'done: stopping the member processes');
  } catch (error) {
    if (!(error instanceof DemoAbort)) throw error;
    exitStatus = error.status;
    aborted = true;
    problems.push(...error.lines);
  } finally {
    // The last frame stays on screen as the cluster was, not as the members went away.
    out.stop();
    stopping = true;
    await processes.close(s.shutdownTimeoutMs);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.off('exit', onExit);
    const ended = processes.allEnded
      ? `every member process ended; ${seconds(now(), 1)} in all`
      : 'some member process did not end';
    // A run cut short gets no report: its measurements would stop halfway through a fault.
    out.print(aborted ? [ended] : ['', ...reportLines(view, s.killed, s.paused), '', ended]);
  }
  for (const line of problems) options.error(line);
  return exitStatus;

  async function formCluster(): Promise<void> {
    const [first, ...rest] = s.names as [string, ...string[]];
    const args = (name: string): string[] => [
      s.profile,
      String(s.statusIntervalMs),
      String(s.priorities[name] ?? 0),
    ];
    const readyBy = clock.now() + s.readyTimeoutMs;
    out.phase(now(), `starting ${first}, the seed`);
    const served = options.http === undefined ? [] : [`--http=${options.http}`];
    view.started(first, processes.spawn(first, [...args(first), ...served]));
    const seedReady = await waitFor(() => view.member(first).address !== undefined, readyBy - clock.now());
    const seed = view.member(first).address;
    if (!seedReady || seed === undefined) throw notReady([first]);
    // The others start once the seed listens, so that their first join attempt reaches it.
    out.phase(now(), `forming: starting ${listNames(rest)}, each joining through ${first} at ${seed}`);
    const since = now();
    for (const name of rest) view.started(name, processes.spawn(name, [...args(name), seed]));
    const ready = await waitFor(
      () => s.names.every((n) => view.member(n).address !== undefined),
      readyBy - clock.now(),
    );
    if (!ready) throw notReady(s.names.filter((n) => view.member(n).address === undefined));
    // Formed, and every hint names the same leader (members first heard of are candidates at once).
    if (!(await waitFor(() => formed(view) && agreedLeader(view) !== undefined, s.formTimeoutMs))) {
      throw new DemoAbort(1, [
        `fdkit demo: the cluster did not form within ${seconds(s.formTimeoutMs, 1)}; each member's view:`,
        ...describeViews(view).map((l) => `  ${l}`),
        `  leaders named: ${s.names.map((n) => `${n} names ${view.member(n).leader ?? '?'}`).join(', ')}`,
        ...s.names.flatMap((n) => processes.stderrTail(n).map((l) => `  ${n} stderr: ${l}`)),
      ]);
    }
    out.note(
      now(),
      `formed: every member holds all ${s.names.length} alive and names ${agreedLeader(view)} leader, ` +
        `${seconds(now() - since)} after the others started`,
    );
    out.table(now());
  }

  function notReady(names: readonly string[]): DemoAbort {
    return new DemoAbort(1, [
      `fdkit demo: ${listNames(names)} did not report an address within ${seconds(s.readyTimeoutMs, 1)}`,
      ...names.flatMap((n) => processes.stderrTail(n).map((l) => `  ${n} stderr: ${l}`)),
    ]);
  }

  async function pauseAndResume(): Promise<void> {
    out.phase(
      now(),
      `pause: SIGSTOP ${s.paused} for ${seconds(s.pauseMinMs, 1)} or until suspected (at most ` +
        `${seconds(s.pauseMaxMs, 1)}); it sends nothing meanwhile`,
    );
    sendSignal('SIGSTOP', s.paused);
    const stoppedAt = now();
    let suspectedAt: number | undefined;
    await waitFor(() => {
      if (suspectedAt === undefined && suspected(view, s.paused)) suspectedAt = now();
      return (
        now() - stoppedAt >= s.pauseMinMs &&
        suspectedAt !== undefined &&
        now() - suspectedAt >= s.suspectedForMs
      );
    }, s.pauseMaxMs);
    // Its status report is as old as the pause now: the table shows it.
    out.table(now());
    sendSignal('SIGCONT', s.paused);
    const resumedAt = now();
    out.phase(
      now(),
      `resumed: watching ${s.paused} for ${seconds(s.watchAfterResumeMs, 1)}, the shortest suspicion timeout`,
    );
    const back = await waitFor(
      () => backFromPause(view, s.paused, resumedAt) && now() - resumedAt >= s.watchAfterResumeMs,
      Math.max(s.watchAfterResumeMs, s.settleTimeoutMs),
    );
    if (back) {
      out.note(now(), `${s.paused} is back: ${listNames(running(view, s.paused))} hold it alive`);
    } else {
      out.note(
        now(),
        `${s.paused} was not held alive by every other member within ${seconds(s.settleTimeoutMs, 1)}`,
      );
    }
    out.table(now());
    await hold(s.lingerMs);
  }
}
