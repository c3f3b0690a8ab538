/** A stand-in for a started `SwimNode`, with what the HTTP handler reads, set by the test. */
import { EventEmitter } from 'node:events';
import type { HttpLeaderChange, HttpLeaveResult, HttpMember } from '../../src/http/http-source.js';
import type { MemberEvent } from '../../src/membership/events.js';

/** A member the test drives: its view, health and counters are plain fields. */
export class FakeMember extends EventEmitter<{
  alive: [MemberEvent];
  suspect: [MemberEvent];
  dead: [MemberEvent];
  left: [MemberEvent];
  update: [MemberEvent];
}> {
  view: HttpMember[];
  localHealth = 0;
  pendingBroadcasts = 0;
  leaves = 0;
  joins: (readonly string[])[] = [];
  joinAnswer: () => Promise<number> = () => Promise.resolve(1);
  leaveResult: HttpLeaveResult = { acknowledged: 2, live: 2, timedOut: false };

  constructor(
    readonly localName: string,
    view: HttpMember[],
  ) {
    super();
    this.view = view;
  }

  members(): readonly HttpMember[] {
    return this.view;
  }

  get localMember(): HttpMember {
    const local = this.view.find((m) => m.name === this.localName);
    if (local === undefined) throw new Error('no local member in the fake view');
    return local;
  }

  counters(): object {
    return { probes: 7, suspicions: 1 };
  }

  async leave(): Promise<HttpLeaveResult> {
    this.leaves += 1;
    return this.leaveResult;
  }

  join(seeds: readonly string[]): Promise<number> {
    this.joins.push(seeds);
    return this.joinAnswer();
  }

  /** Sets one member's state and emits the event a node would. */
  transition(name: string, type: MemberEvent['type'], extra: Partial<MemberEvent> = {}): MemberEvent {
    const member = this.view.find((m) => m.name === name);
    if (member === undefined) throw new Error(`no member ${name}`);
    const previous = member.state;
    const state = type === 'update' ? member.state : type;
    this.view = this.view.map((m) => (m.name === name ? { ...m, state } : m));
    const event: MemberEvent = {
      type,
      member: name,
      address: member.address,
      incarnation: member.incarnation,
      previous,
      atMs: 0,
      wallMs: 1_700_000_000_000,
      cause: type === 'suspect' ? 'probe-failed' : type === 'dead' ? 'suspicion-timeout' : 'joined',
      confirmations: 0,
      localHealth: 0,
      ...extra,
    };
    this.emit(type, event);
    return event;
  }
}

/** A stand-in for a `LeaderHint`. */
export class FakeLeader extends EventEmitter<{ leader: [HttpLeaderChange] }> {
  leader = 'a';
  epoch = 0;
  isLeader = true;

  move(to: string, wallMs: number): void {
    const previous = this.leader;
    this.leader = to;
    this.epoch += 1;
    this.isLeader = false;
    this.emit('leader', { leader: to, previous, epoch: this.epoch, cause: 'leader-failed', wallMs });
  }
}

/** A member of the fake view, alive by default. */
export function member(name: string, extra: Partial<HttpMember> = {}): HttpMember {
  return {
    name,
    address: `127.0.0.1:${7000 + name.charCodeAt(0)}`,
    state: 'alive',
    incarnation: 1,
    meta: new Uint8Array(0),
    phi: 0.5,
    ...extra,
  };
}
