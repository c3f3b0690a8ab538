/**
 * The status page script's model and formats, run in a bare V8 context: the script is a string of
 * browser JavaScript, but these parts of it touch no DOM, so their logic (an event applied at once, a
 * snapshot that does not undo a newer event, a bounded timeline, the ages) is checked here in
 * milliseconds rather than through a browser.
 */
import { Script } from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { MemberJson, StreamEventJson } from '../../src/http/api-types.js';
import { SCRIPT_FORMAT } from '../../src/http/page/script-format.js';
import { SCRIPT_MODEL } from '../../src/http/page/script-model.js';

type MemberEvent = Extract<StreamEventJson, { kind: 'member' }>;

interface PageModel {
  readonly model: { members: Map<string, MemberJson>; timeline: StreamEventJson[]; seq: number };
  applySnapshot(list: MemberJson[], seqAtRequest: number): void;
  applyMemberEvent(event: MemberEvent): void;
  ago(t: number | null, now: number): string;
  formatRtt(member: Pick<MemberJson, 'rttMs'>): string;
  formatAccusation(member: Pick<MemberJson, 'accuser' | 'confirmations'>): string;
}

function load(): PageModel {
  const exports = 'return { model, applySnapshot, applyMemberEvent, ago, formatRtt, formatAccusation };';
  const source = `(function () { 'use strict'; ${SCRIPT_FORMAT} ${SCRIPT_MODEL} ${exports} })()`;
  return new Script(source).runInNewContext({}) as PageModel;
}

function member(name: string, fields: Partial<MemberJson> = {}): MemberJson {
  return {
    name,
    address: `10.0.0.1:${name.length}`,
    state: 'alive',
    incarnation: 1,
    meta: '',
    metaEncoding: 'utf8',
    since: 1000,
    accuser: null,
    confirmations: 0,
    phi: 0.5,
    rttMs: 1,
    local: false,
    ...fields,
  };
}

function event(name: string, type: MemberEvent['type'], fields: Partial<MemberEvent> = {}): MemberEvent {
  return {
    kind: 'member',
    type,
    member: name,
    address: '10.0.0.9:7946',
    incarnation: 2,
    previous: 'alive',
    cause: 'test',
    accuser: null,
    confirmations: 0,
    t: 5000,
    ...fields,
  };
}

/** The model's member, as plain data of this realm. */
function held(page: PageModel, name: string): MemberJson | undefined {
  const found = page.model.members.get(name);
  return found === undefined ? undefined : (JSON.parse(JSON.stringify(found)) as MemberJson);
}

describe('the status page model', () => {
  it('applies an event at once: state, since, accuser and confirmations, and the incarnation', () => {
    const page = load();
    page.applySnapshot([member('a'), member('b')], 0);
    page.applyMemberEvent(event('a', 'suspect', { accuser: 'b', confirmations: 2, t: 7000 }));
    expect(held(page, 'a')).toMatchObject({
      state: 'suspect',
      since: 7000,
      accuser: 'b',
      confirmations: 2,
      incarnation: 2,
      address: '10.0.0.9:7946',
      phi: 0.5,
    });
    expect(held(page, 'b')?.state).toBe('alive');
  });

  it('adds the member of an event it did not know, and an update changes no state', () => {
    const page = load();
    page.applyMemberEvent(event('new', 'alive', { incarnation: 4 }));
    expect(held(page, 'new')).toMatchObject({ state: 'alive', incarnation: 4, local: false, rttMs: null });
    page.applyMemberEvent(event('new', 'suspect', { accuser: 'x' }));
    page.applyMemberEvent(event('new', 'update', { incarnation: 5, t: 9999 }));
    expect(held(page, 'new')).toMatchObject({ state: 'suspect', accuser: 'x', incarnation: 5, since: 5000 });
  });

  it('keeps an event newer than the snapshot request, and takes the rest from the snapshot', () => {
    const page = load();
    page.applySnapshot([member('a'), member('b')], 0);
    const requestedAt = page.model.seq;
    page.applyMemberEvent(event('a', 'dead', { accuser: 'b', t: 8000 }));
    // The snapshot left the server before the death: it still says alive.
    page.applySnapshot([member('a', { phi: 9 }), member('b', { phi: 2 })], requestedAt);
    expect(held(page, 'a')).toMatchObject({ state: 'dead', since: 8000, accuser: 'b', phi: 9 });
    expect(held(page, 'b')?.phi).toBe(2);
  });

  it('lets a snapshot requested after the event replace it', () => {
    const page = load();
    page.applySnapshot([member('a')], 0);
    page.applyMemberEvent(event('a', 'dead'));
    page.applySnapshot([member('a', { state: 'alive', incarnation: 3 })], page.model.seq);
    expect(held(page, 'a')).toMatchObject({ state: 'alive', incarnation: 3 });
    // And the event no longer shields the member from the next snapshot either.
    page.applySnapshot([member('a', { state: 'left' })], page.model.seq);
    expect(held(page, 'a')?.state).toBe('left');
  });

  it('drops a member the snapshot no longer has, unless an event about it came after the request', () => {
    const page = load();
    page.applySnapshot([member('a'), member('b'), member('c')], 0);
    const requestedAt = page.model.seq;
    page.applyMemberEvent(event('c', 'alive', { incarnation: 7 }));
    page.applySnapshot([member('a')], requestedAt);
    expect([...page.model.members.keys()].sort()).toEqual(['a', 'c']);
    expect(held(page, 'c')?.incarnation).toBe(7);
  });

  it('keeps the newest 500 transitions, newest first', () => {
    const page = load();
    for (let i = 0; i < 620; i++) page.applyMemberEvent(event(`m${i}`, 'alive', { t: i }));
    expect(page.model.timeline).toHaveLength(500);
    expect(page.model.timeline[0]).toMatchObject({ member: 'm619' });
    expect(page.model.timeline[499]).toMatchObject({ member: 'm120' });
  });

  it('writes ages, round-trip times and accusations as an operator reads them', () => {
    const { ago, formatRtt, formatAccusation } = load();
    const now = 1_000_000_000;
    expect(ago(null, now)).toBe('—');
    expect(ago(now - 400, now)).toBe('just now');
    expect(ago(now + 3000, now)).toBe('just now');
    expect(ago(now - 12_000, now)).toBe('12 s ago');
    expect(ago(now - 59_999, now)).toBe('59 s ago');
    expect(ago(now - 60_000, now)).toBe('1 min ago');
    expect(ago(now - 3 * 3_600_000, now)).toBe('3 h ago');
    expect(ago(now - 2 * 86_400_000, now)).toBe('2 d ago');
    expect(formatRtt({ rttMs: null })).toBe('—');
    expect(formatRtt({ rttMs: 2.345 })).toBe('2.3 ms');
    expect(formatRtt({ rttMs: 41.6 })).toBe('42 ms');
    expect(formatAccusation({ accuser: 'n2', confirmations: 0 })).toBe('n2');
    expect(formatAccusation({ accuser: 'n2', confirmations: 3 })).toBe('n2 +3');
    expect(formatAccusation({ accuser: null, confirmations: 0 })).toBe('');
  });
});
