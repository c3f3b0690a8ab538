/**
 * `fdkit members`, `leader`, `events` and `leave` against the real HTTP handler on 127.0.0.1:0 over a
 * fake member: what they print, the flags they refuse, and a down or refusing agent as one line.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/args.js';
import { ApiError } from '../../src/cli/client/api-client.js';
import { runLeaderCommand, runLeaveCommand, runMembersCommand } from '../../src/cli/client/api-commands.js';
import { eventLine, runEventsCommand, takeEvents } from '../../src/cli/client/events-command.js';
import { fdkitHttpHandler } from '../../src/http/handler.js';
import type { HttpHandlerOptions } from '../../src/http/handler-options.js';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';
import { FakeLeader, FakeMember, member } from '../http/fake-member.js';
import { type Served, serve } from '../http/serve.js';

const TOKEN = 'a-token-of-enough-length';
let served: Served | undefined;

afterEach(async () => {
  await served?.close();
  served = undefined;
});

function captured() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { stdout: (s: string) => out.push(s), stderr: (s: string) => err.push(s) }, out, err };
}

async function agent(source: FakeMember, options: HttpHandlerOptions = {}): Promise<string> {
  served = await serve(fdkitHttpHandler(source, { clock: new VirtualClock(), ...options }));
  return served.url.replace('http://', '');
}

function cluster(): FakeMember {
  return new FakeMember('a', [
    member('a', { meta: new TextEncoder().encode('zone=b') }),
    member('b', { rttMs: 0.84 }),
    member('c\u001b[2J', { phi: 3.1 }),
  ]);
}

describe('fdkit members', () => {
  it('prints a table: the local member marked, since from the wall clock, RTT or phi, who suspects', async () => {
    const source = cluster();
    const addr = await agent(source);
    const clock = new VirtualClock({ wallStartMs: 1_700_000_090_000 });
    source.transition('b', 'suspect', { accuser: 'c\u001b[2J', confirmations: 2, wallMs: 1_700_000_000_000 });
    const { io, out } = captured();
    expect(await runMembersCommand(['--http', addr], io, clock)).toBe(0);
    const lines = out.join('').split('\n');
    expect(lines[0]).toMatch(/^NAME +ADDRESS +STATE +INC +SINCE +RTT\/PHI +SUSPECTED BY +META$/);
    const cells = lines.slice(1, 4).map((line) => line.split(/ {2,}/));
    expect(cells[0]).toEqual(['a *', member('a').address, 'alive', '1', '-', '-', '-', 'zone=b']);
    // 90 s between the suspicion's wall time and the clock's.
    expect(cells[1]).toEqual(['b', member('b').address, 'suspect', '1', '90s', '0.8ms', 'c?[2J (+2)']);
    // The escape sequence in a name reaches the terminal as '?', not as a command.
    expect(cells[2]).toEqual(['c?[2J', member('c').address, 'alive', '1', '-', 'phi 3.10', '-']);
    expect(lines[4]).toBe('');
    expect(out.join('')).not.toContain('\u001b');
  });

  it('prints the API JSON with --json, and filters with --state', async () => {
    const source = cluster();
    const addr = await agent(source);
    source.transition('b', 'dead');
    const { io, out } = captured();
    await runMembersCommand(
      ['--http', `http://${addr}`, '--json', '--state', 'dead'],
      io,
      new VirtualClock(),
    );
    const printed = JSON.parse(out.join('')) as { name: string; state: string }[];
    expect(printed.map((m) => [m.name, m.state])).toEqual([['b', 'dead']]);
  });

  it('refuses a missing or malformed --http and an unknown state, naming them', async () => {
    const { io } = captured();
    const clock = new VirtualClock();
    await expect(runMembersCommand([], io, clock)).rejects.toThrow(/fdkit members: --http ADDR is required/);
    await expect(runMembersCommand(['--http', 'http://x:1/path'], io, clock)).rejects.toThrow(
      /--http takes PORT, HOST:PORT or http:\/\/HOST:PORT, got 'http:\/\/x:1\/path'/,
    );
    await expect(runMembersCommand(['--http', 'nohost'], io, clock)).rejects.toThrow(UsageError);
    await expect(runMembersCommand(['--http', '1', '--state', 'zombie'], io, clock)).rejects.toThrow(
      /--state takes alive, suspect, dead, left, got 'zombie'/,
    );
  });

  it('says in one line that the agent cannot be reached, or that it refused the token', async () => {
    const addr = await agent(cluster(), { token: TOKEN });
    const { io } = captured();
    const clock = new VirtualClock();
    await expect(runMembersCommand(['--http', addr], io, clock)).rejects.toThrow(
      new ApiError(
        `http://${addr}/v1/members answered 401 FDKIT_HTTP_UNAUTHORIZED: missing or wrong bearer token`,
      ),
    );
    const dir = mkdtempSync(join(tmpdir(), 'fdkit-token-'));
    writeFileSync(join(dir, 'token'), `${TOKEN}\n`);
    expect(await runMembersCommand(['--http', addr, '--token-file', join(dir, 'token')], io, clock)).toBe(0);
    await served?.close();
    served = undefined;
    await expect(runMembersCommand(['--http', addr], io, clock)).rejects.toThrow(
      // A refused connection, or the pooled one of the request before, closed by the server.
      /cannot reach the agent at http:\/\/127\.0\.0\.1:\d+ \((ECONNREFUSED|UND_ERR_SOCKET)\): is it running with --http\?/,
    );
  });
});

describe('fdkit leader and fdkit leave', () => {
  it('prints the leader hint and its epoch', async () => {
    const hint = new FakeLeader();
    hint.move('b', 1);
    const addr = await agent(cluster(), { leader: hint });
    const { io, out } = captured();
    await runLeaderCommand(['--http', addr], io);
    await runLeaderCommand(['--http', addr, '--json'], io);
    expect(out).toEqual(['b (epoch 1)\n', '{"leader":"b","epoch":1,"isLeader":false}\n']);
  });

  it('makes the agent leave once and prints how many acknowledged', async () => {
    const source = cluster();
    source.leaveResult = { acknowledged: 1, live: 2, timedOut: true };
    const addr = await agent(source);
    const { io, out } = captured();
    await runLeaveCommand(['--http', addr], io);
    expect(out).toEqual(['left: 1 of 2 live members acknowledged (timed out waiting for the rest)\n']);
    expect(source.leaves).toBe(1);
    await expect(runLeaveCommand(['--http', addr], io)).rejects.toThrow(/409 FDKIT_HTTP_CONFLICT/);
    expect(source.leaves).toBe(1);
  });
});

describe('fdkit events', () => {
  it('follows the stream a line per event until interrupted, and exits 0', async () => {
    const source = cluster();
    const hint = new FakeLeader();
    const addr = await agent(source, { leader: hint });
    const stop = new AbortController();
    const lines: string[] = [];
    let wake: () => void = () => undefined;
    const io = {
      stdout: (s: string) => {
        lines.push(s);
        wake();
      },
      stderr: () => undefined,
    };
    const following = runEventsCommand(['--http', addr], io, stop.signal);
    const printed = new Promise<void>((resolve) => {
      wake = () => {
        if (lines.length === 2) resolve();
      };
    });
    await served?.requested('/v1/events');
    source.transition('b', 'suspect', { accuser: 'a', confirmations: 1, wallMs: Date.UTC(2026, 11, 2, 15) });
    hint.move('b', Date.UTC(2026, 11, 2, 15, 0, 1));
    await printed;
    expect(lines[0]).toBe('2026-12-02T15:00:00.000Z b alive -> suspect (probe-failed, by a +1) inc 1\n');
    expect(lines[1]).toBe('2026-12-02T15:00:01.000Z leader a -> b (leader-failed, epoch 1)\n');
    stop.abort();
    expect(await following).toBe(0);
  });

  it('fails in one line when the agent ends the stream', async () => {
    const addr = await agent(cluster());
    const { io } = captured();
    const following = runEventsCommand(['--http', addr, '--json'], io, new AbortController().signal);
    const ended = expect(following).rejects.toThrow(/ended the event stream/);
    await served?.requested('/v1/events');
    await served?.close();
    served = undefined;
    await ended;
  });

  it('splits a stream cut anywhere into whole events', () => {
    const stream =
      'id: 1\nevent: member\ndata: {"a":1}\n\n: ping\n\nid: 2\nevent: leader\ndata: {"b":2}\n\nid: 3\nda';
    for (let cut = 0; cut <= stream.length; cut += 1) {
      const first = takeEvents(stream.slice(0, cut));
      const second = takeEvents(first.rest + stream.slice(cut));
      expect([...first.data, ...second.data], `cut at ${cut}`).toEqual(['{"a":1}', '{"b":2}']);
      expect(second.rest).toBe('id: 3\nda');
    }
  });

  it('writes a member event with no accuser without one', () => {
    expect(
      eventLine({
        kind: 'member',
        type: 'alive',
        member: 'b',
        address: 'x:1',
        incarnation: 4,
        previous: 'suspect',
        cause: 'refuted',
        accuser: null,
        confirmations: 0,
        t: Date.UTC(2026, 0, 1),
      }),
    ).toBe('2026-01-01T00:00:00.000Z b suspect -> alive (refuted) inc 4\n'.trimEnd());
  });
});
