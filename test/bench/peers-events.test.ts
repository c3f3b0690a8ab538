/**
 * bench/peers/events.ts: each system's output lines become the same events. The lines are copied from
 * real output of `fdkit agent`, `serf agent -log-level info` (Debian's serf 0.9.4) and
 * bench/peers/memberlist-agent.
 */
import { describe, expect, it } from 'vitest';
import {
  convergedView,
  type PeerEvent,
  parseFdkitLine,
  parseMemberlistLine,
  parserFor,
  parseSerfLine,
  viewOf,
} from '../../bench/peers/events.js';

describe('parseFdkitLine', () => {
  const line = (event: string, cause: string, node = 'n1'): string =>
    JSON.stringify({ t: 1_796_016_004_391, node, event, member: 'n3', incarnation: 7, cause });

  it('reads transitions, and tells a suspicion the member raised from one it heard of', () => {
    expect(parseFdkitLine(line('suspect', 'probe-failed'), 'n1')).toEqual({
      observer: 'n1',
      kind: 'suspect',
      member: 'n3',
      raised: true,
      cause: 'probe-failed',
    });
    expect(parseFdkitLine(line('suspect', 'connection-refused'), 'n1')?.raised).toBe(true);
    expect(parseFdkitLine(line('suspect', 'suspect-gossip'), 'n1')?.raised).toBe(false);
    expect(parseFdkitLine(line('dead', 'suspicion-timeout'), 'n1')).toMatchObject({
      kind: 'dead',
      raised: false,
    });
    expect(parseFdkitLine(line('alive', 'refuted'), 'n1')?.kind).toBe('alive');
    expect(parseFdkitLine(line('left', 'left'), 'n1')?.kind).toBe('left');
  });

  it('ignores updates, other agents, logs and garbage', () => {
    expect(parseFdkitLine(line('update', 'metadata'), 'n1')).toBeUndefined();
    expect(parseFdkitLine(line('dead', 'dead-gossip', 'n2'), 'n1')).toBeUndefined();
    expect(parseFdkitLine('{"level":40,"msg":"join failed, retrying"}', 'n1')).toBeUndefined();
    expect(parseFdkitLine('{"node":"n1","event":"dead"', 'n1')).toBeUndefined();
    expect(parseFdkitLine('[1,2]', 'n1')).toBeUndefined();
    expect(parseFdkitLine('', 'n1')).toBeUndefined();
  });
});

describe('parseSerfLine', () => {
  const at = '    2026/11/30 05:18:24 ';

  it('reads member events and the suspicions of memberlist inside Serf', () => {
    expect(parseSerfLine(`${at}[INFO] serf: EventMemberJoin: s3 127.0.0.1`, 's1')).toEqual({
      observer: 's1',
      kind: 'alive',
      member: 's3',
      raised: false,
      cause: 'EventMemberJoin',
    });
    expect(parseSerfLine(`${at}[INFO] serf: EventMemberFailed: s3 127.0.0.1`, 's1')?.kind).toBe('dead');
    expect(parseSerfLine(`${at}[INFO] serf: EventMemberLeave: s3 127.0.0.1`, 's1')?.kind).toBe('left');
    expect(parseSerfLine(`${at}[INFO] memberlist: Suspect s3 has failed, no acks received`, 's1')).toEqual({
      observer: 's1',
      kind: 'suspect',
      member: 's3',
      raised: true,
      cause: 'probe-failed',
    });
    expect(parseSerfLine(`${at}[WARN] memberlist: Refuting a suspect message (from: s2)`, 's1')).toEqual({
      observer: 's1',
      kind: 'refute',
      member: 's1',
      raised: false,
      cause: 'suspect-refuted',
    });
  });

  it('ignores the rest of the log', () => {
    for (const text of [
      '==> Serf agent running!',
      `${at}[INFO] agent: Received event: member-failed`,
      `${at}[INFO] memberlist: Marking s3 as failed, suspect timeout reached (0 peer confirmations)`,
      `${at}[ERR] memberlist: Failed fallback ping: read tcp 127.0.0.1:40126->127.0.0.1:22002: i/o timeout`,
      `${at}[WARN] serf: Shutdown without a Leave`,
    ]) {
      expect(parseSerfLine(text, 's1')).toBeUndefined();
    }
  });
});

describe('parseMemberlistLine', () => {
  const line = (event: string, member: string, cause: string, node = 'm1'): string =>
    JSON.stringify({ t: 1_796_016_009_393, node, event, member, cause });

  it('reads the Go agent: delegate events, and its own suspicions from the log', () => {
    expect(parseMemberlistLine(line('suspect', 'm3', 'probe-failed'), 'm1')).toEqual({
      observer: 'm1',
      kind: 'suspect',
      member: 'm3',
      raised: true,
      cause: 'probe-failed',
    });
    expect(parseMemberlistLine(line('dead', 'm3', 'failed'), 'm1')).toMatchObject({
      kind: 'dead',
      raised: false,
    });
    expect(parseMemberlistLine(line('alive', 'm2', 'joined'), 'm1')?.kind).toBe('alive');
    expect(parseMemberlistLine(line('left', 'm2', 'left'), 'm1')?.kind).toBe('left');
    expect(parseMemberlistLine(line('refute', 'm1', 'suspect-refuted'), 'm1')?.kind).toBe('refute');
  });

  it('ignores updates, command answers and other agents', () => {
    expect(parseMemberlistLine(line('update', 'm2', 'metadata'), 'm1')).toBeUndefined();
    expect(parseMemberlistLine('{"alive":5,"total":5,"type":"members"}', 'm1')).toBeUndefined();
    expect(parseMemberlistLine(line('dead', 'm3', 'failed', 'm2'), 'm1')).toBeUndefined();
  });

  it('is the parser the bench picks for it', () => {
    expect(parserFor('memberlist')).toBe(parseMemberlistLine);
    expect(parserFor('serf')).toBe(parseSerfLine);
    expect(parserFor('fdkit')).toBe(parseFdkitLine);
  });
});

describe('views', () => {
  const ev = (observer: string, kind: PeerEvent['kind'], member: string): PeerEvent => ({
    atMs: 0,
    observer,
    kind,
    member,
    raised: kind === 'suspect',
    cause: 'x',
  });

  it('keep the last alive, dead or left; suspicions and self-events change nothing', () => {
    const events = [
      ev('a', 'alive', 'a'),
      ev('a', 'alive', 'b'),
      ev('a', 'alive', 'c'),
      ev('a', 'suspect', 'c'),
      ev('a', 'dead', 'b'),
      ev('b', 'alive', 'a'),
    ];
    expect(Object.fromEntries(viewOf(events, 'a'))).toEqual({ b: 'dead', c: 'alive' });
    expect(convergedView(events, ['a', 'c'])).toBe(false);
    expect(convergedView([...events, ev('c', 'alive', 'a')], ['a', 'c'])).toBe(true);
    expect(convergedView(events, ['a', 'b'])).toBe(false);
  });
});
