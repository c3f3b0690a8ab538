/**
 * End-to-end test of `fdkit demo` from the build (`npm test` builds before vitest runs), with stdout
 * piped, so that it prints plain lines: it runs its five member processes to the end of the scenario
 * and exits 0 within 60 s; every line is plain text; the killed member, the leader, is held dead by all
 * four survivors, whose leader hints all move to the same new leader; the paused member gets no death
 * and is held alive again; and no member process is left.
 * Also: SIGINT ends the demo and its members at once, and a demo killed outright takes its members with
 * it (their IPC channel closes).
 *
 * Real processes on a real clock: every wait is a bounded poll, and the only time asserted is the 60 s
 * the demo promises.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, waitUntil } from './agent-process.js';

/** The demo's promise: it ends by itself within a minute. */
const LIMIT_MS = 60_000;
const ESCAPE = '\u001b';
/** A plain line: seconds since the start, two spaces, text. */
const STAMPED = /^ *\d+\.\d\ds {2}(.*)$/;

interface DemoRun {
  readonly child: ChildProcess;
  stdout: string;
  stderr: string;
  /** Set once the process exited and its output was read to the end. */
  end?: { readonly status: number | null; readonly signal: NodeJS.Signals | null; readonly ms: number };
}

const runs: DemoRun[] = [];

/** Starts `fdkit demo` with stdout and stderr piped; it is killed if it outlives the limit. */
function startDemo(args: readonly string[] = []): DemoRun {
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, 'demo', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const run: DemoRun = { child, stdout: '', stderr: '' };
  runs.push(run);
  child.stdout!.setEncoding('utf8').on('data', (s: string) => {
    run.stdout += s;
  });
  child.stderr!.setEncoding('utf8').on('data', (s: string) => {
    run.stderr += s;
  });
  const guard = setTimeout(() => child.kill('SIGKILL'), LIMIT_MS + 10_000);
  child.on('close', (status, signal) => {
    clearTimeout(guard);
    run.end = { status, signal, ms: performance.now() - started };
  });
  return run;
}

/** The member pids the demo printed (`n1 listening on 127.0.0.1:PORT (pid N)`), by name. */
function memberPids(stdout: string): Map<string, number> {
  const pids = new Map<string, number>();
  for (const m of stdout.matchAll(/ (\S+) listening on 127\.0\.0\.1:\d+ \(pid (\d+)\)$/gm)) {
    pids.set(m[1]!, Number(m[2]));
  }
  return pids;
}

/**
 * Whether process `pid` exists and is not a zombie: a member orphaned by a killed demo is reaped by
 * whichever process adopts it, which in a container may be late or never.
 */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    // The state is the field after the parenthesised command name.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}

/** The text of every stamped line (the events and steps), without its time. */
function stamped(stdout: string): string[] {
  return stdout.split('\n').flatMap((line) => {
    const m = STAMPED.exec(line);
    return m === null ? [] : [m[1]!];
  });
}

afterAll(() => {
  // Whatever a failed assertion left behind: the demos, then any member of theirs.
  for (const run of runs) {
    if (run.end === undefined) run.child.kill('SIGKILL');
    for (const pid of memberPids(run.stdout).values()) {
      if (!isRunning(pid)) continue;
      process.kill(pid, 'SIGCONT');
      process.kill(pid, 'SIGKILL');
    }
  }
});

describe('fdkit demo, stdout piped', () => {
  let run: DemoRun;
  let lines: string[];
  let events: string[];
  let killed: string;
  let paused: string;
  let names: string[];

  beforeAll(async () => {
    run = startDemo();
    await waitUntil(() => run.end !== undefined, LIMIT_MS + 15_000, 100);
    lines = run.stdout.split('\n');
    events = stamped(run.stdout);
    names = [...memberPids(run.stdout).keys()];
    killed = /^SIGKILL (\S+) \(pid \d+\)$/m.exec(events.join('\n'))?.[1] ?? '(none)';
    paused = /^SIGSTOP (\S+)$/m.exec(events.join('\n'))?.[1] ?? '(none)';
    console.log(
      `fdkit demo: exit ${run.end?.status} after ${Math.round(run.end?.ms ?? 0)} ms; summary:\n` +
        lines.slice(lines.indexOf('Summary')).join('\n'),
    );
  }, LIMIT_MS + 20_000);

  it('exits 0 by itself within 60 s, with nothing on stderr', () => {
    expect(run.end, run.stdout).toBeDefined();
    expect(run.end!.signal).toBeNull();
    expect(run.end!.status, run.stderr).toBe(0);
    expect(run.end!.ms).toBeLessThan(LIMIT_MS);
    expect(run.stderr).toBe('');
  });

  it('prints plain lines: no escape sequence; events and steps stamped, tables indented, then the report', () => {
    expect(run.stdout).not.toContain(ESCAPE);
    expect(run.stdout).not.toContain('\r');
    const live = lines.slice(
      0,
      lines.findIndex((l) => l.startsWith('Timeline of the crash')),
    );
    expect(live.length).toBeGreaterThan(20);
    for (const line of live) {
      if (line === '') continue;
      expect(STAMPED.test(line) || /^ {11}\S/.test(line), line).toBe(true);
    }
    expect(lines).toContain('Summary');
    expect(lines.at(-2)).toMatch(/^every member process ended; \d+\.\ds in all$/);
  });

  it('started five member processes, each with its own pid', () => {
    const pids = memberPids(run.stdout);
    expect(pids.size).toBe(5);
    expect(new Set(pids.values()).size).toBe(5);
    expect(names).toContain(killed);
    expect(names).toContain(paused);
    expect(killed).not.toBe(paused);
    expect(events).toContain(`SIGKILL ${killed} (pid ${pids.get(killed)})`);
  });

  it('the killed member is held dead by all four survivors', () => {
    const survivors = names.filter((n) => n !== killed).sort();
    expect(survivors).toHaveLength(4);
    const sawDead = new Set(
      events.flatMap((e) => {
        const m = new RegExp(`^(\\S+) sees ${killed} dead \\(`).exec(e);
        return m === null ? [] : [m[1]!];
      }),
    );
    expect([...sawDead].sort()).toEqual(survivors);
    expect(lines).toContainEqual(
      expect.stringMatching(/^ {4}held dead by all 4 survivors after \d+\.\d\ds$/),
    );
  });

  it("the killed member led, and every survivor's leader hint moved off it to the same new leader", () => {
    const formedLine = events.find((e) => e.startsWith('formed: '));
    expect(formedLine).toMatch(new RegExp(`and names ${killed} leader,`));
    const survivors = names.filter((n) => n !== killed).sort();
    const after = events.slice(events.findIndex((e) => e.startsWith(`SIGKILL ${killed} `)));
    // Each survivor's last change after the kill (before the pause) is to the new leader.
    const beforePause = after.slice(
      0,
      Math.max(
        0,
        after.findIndex((e) => e.startsWith('SIGSTOP ')),
      ),
    );
    const lastNamed = new Map<string, string>();
    for (const e of beforePause) {
      const m = /^(\S+) names (\S+) leader \(epoch \d+, [a-z-]+\)$/.exec(e);
      if (m !== null) lastNamed.set(m[1]!, m[2]!);
    }
    expect([...lastNamed.keys()].sort()).toEqual(survivors);
    const leaders = new Set(lastNamed.values());
    expect(leaders.size, JSON.stringify([...lastNamed])).toBe(1);
    const [leader] = leaders;
    expect(leader).not.toBe(killed);
    expect(survivors).toContain(leader);
    expect(events).toContainEqual(
      expect.stringMatching(
        new RegExp(`^every survivor names ${leader} leader, \\d+\\.\\d\\ds after the SIGKILL of ${killed}$`),
      ),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^ {4}leader hint: every survivor moved from ${killed} to ${leader} within \\d+\\.\\d\\ds$`,
        ),
      ),
    );
  });

  it('the paused member got no dead event and was held alive again by every other member', () => {
    const after = events.slice(events.indexOf(`SIGSTOP ${paused}`));
    expect(after.length).toBeGreaterThan(0);
    expect(events.filter((e) => new RegExp(`^\\S+ sees ${paused} (dead|left) `).test(e))).toEqual([]);
    expect(lines).toContain('    declared dead by nobody');
    expect(lines).toContain('  false deaths: none (no member that was not killed was ever held dead)');
    const back = /^ {4}held alive at incarnation (\d+) by all 3 others \d+\.\d\ds after SIGCONT$/m.exec(
      run.stdout,
    );
    expect(back, run.stdout).not.toBeNull();
    // Whoever suspected it saw it refute, at a higher incarnation than the one it suspected.
    for (const observer of names.filter((n) => n !== paused && n !== killed)) {
      const suspect = after.find((e) => e.startsWith(`${observer} sees ${paused} suspect (inc `));
      if (suspect === undefined) continue;
      const suspectedAt = Number(/inc (\d+)/.exec(suspect)![1]);
      const refute = after
        .slice(after.indexOf(suspect))
        .find((e) => e.startsWith(`${observer} sees ${paused} alive (inc `));
      expect(refute, `${observer}:\n${after.join('\n')}`).toMatch(/, refuted\)$/);
      expect(Number(/inc (\d+)/.exec(refute!)![1])).toBeGreaterThan(suspectedAt);
      expect(Number(back![1])).toBeGreaterThan(suspectedAt);
    }
  });

  it('left no member process running', () => {
    const pids = [...memberPids(run.stdout).values()];
    expect(pids.filter(isRunning)).toEqual([]);
  });
});

describe('fdkit demo, ended early', () => {
  it('serves the status page of its seed with --http, and ends its members and exits 130 on SIGINT', async () => {
    const run = startDemo(['--http', '127.0.0.1:0']);
    const formed = await waitUntil(
      () => run.stdout.includes('formed: ') || run.end !== undefined,
      30_000,
      50,
    );
    expect(formed, run.stdout + run.stderr).toBe(true);
    const pids = [...memberPids(run.stdout).values()];
    expect(pids).toHaveLength(5);
    const url = / status page of n1: (http:\/\/127\.0\.0\.1:\d+)\/$/m.exec(run.stdout)?.[1];
    expect(url, run.stdout).toBeDefined();
    const members = (await (await fetch(`${url}/v1/members`)).json()) as { name: string; local: boolean }[];
    expect(members.map((m) => m.name).sort()).toEqual(['n1', 'n2', 'n3', 'n4', 'n5']);
    expect(members.find((m) => m.local)?.name).toBe('n1');
    expect(await (await fetch(`${url}/`)).text()).toContain('<title>fdkit status</title>');
    run.child.kill('SIGINT');
    await waitUntil(() => run.end !== undefined, 10_000, 50);
    expect(run.end?.status).toBe(130);
    expect(run.stderr).toContain('fdkit demo: stopped by SIGINT');
    expect(run.stdout).toMatch(/every member process ended/);
    expect(pids.filter(isRunning)).toEqual([]);
  }, 45_000);

  it('takes its members with it when it is killed outright', async () => {
    const run = startDemo();
    const formed = await waitUntil(
      () => run.stdout.includes('formed: ') || run.end !== undefined,
      30_000,
      50,
    );
    expect(formed, run.stdout + run.stderr).toBe(true);
    const pids = [...memberPids(run.stdout).values()];
    expect(pids).toHaveLength(5);
    run.child.kill('SIGKILL');
    // Each member sees its IPC channel close, shuts its node down and exits.
    const gone = await waitUntil(() => pids.every((p) => !isRunning(p)), 5000, 50);
    expect(gone, `still running: ${pids.filter(isRunning).join(' ')}`).toBe(true);
  }, 45_000);
});
