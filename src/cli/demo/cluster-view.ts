/**
 * What `fdkit demo` knows of its cluster: each member process (pid, address, whether it runs, is stopped
 * or was killed), each member's latest view of every other, and a log of every change of those views
 * with its time. Members report by events, which are exact, and by periodic status snapshots, which also
 * show what changes without an event (an incarnation raised by a refutation that this member never
 * suspected); the log holds each change once. Each member also runs a leader hint: the view keeps whom
 * it names and logs every change of it. Pure: times are milliseconds since the demo started, given by the
 * caller.
 */
import type { MemberStateName } from '../../membership/member-state.js';
import type { EventMessage, LeaderMessage, StatusMessage } from './messages.js';

/**
 * What happens to a member process, as far as the demo knows: `forked` until it reports its address,
 * then `running`, `stopped` (SIGSTOP), `killed` (SIGKILL) or `exited` (on its own).
 */
export type ProcessState = 'forked' | 'running' | 'stopped' | 'killed' | 'exited';

/** How one member holds another. */
export interface Knowledge {
  readonly state: MemberStateName;
  readonly incarnation: number;
  /** Phi from the observer's latest status report; 0 until one arrived. */
  readonly phi: number;
}

/** A change in how one member holds another. */
export interface Observation {
  /** When the observer saw it (ms since the demo started). */
  readonly atMs: number;
  readonly observer: string;
  readonly member: string;
  readonly state: MemberStateName;
  readonly incarnation: number;
  /** An event says why; a change seen only in a status report has no cause. */
  readonly cause?: string;
  readonly accuser?: string;
}

/** A change of whom a member's leader hint names. */
export interface LeaderObservation {
  /** When the member's hint changed (ms since the demo started). */
  readonly atMs: number;
  readonly observer: string;
  readonly leader: string;
  readonly previous: string;
  readonly epoch: number;
  readonly cause: string;
}

/** A signal the demo sent to a member. */
export interface Fault {
  readonly signal: 'SIGKILL' | 'SIGSTOP' | 'SIGCONT';
  readonly member: string;
  readonly atMs: number;
}

/** The latest status report of a member. */
export interface StatusReport {
  /** When the demo received it: a stopped member sends none, and the age of this shows it. */
  readonly receivedAtMs: number;
  readonly localHealth: number;
  /** The member's own incarnation. */
  readonly incarnation: number;
}

/** One member process and its view of the cluster. */
export interface MemberRecord {
  readonly name: string;
  readonly pid: number | undefined;
  readonly address: string | undefined;
  readonly process: ProcessState;
  readonly status: StatusReport | undefined;
  /** How it holds each other member, by name. */
  readonly knowledge: ReadonlyMap<string, Knowledge>;
  /** Whom its leader hint names, from its latest report of it; undefined before the first. */
  readonly leader: string | undefined;
  /** Its hint's count of changes, with {@link MemberRecord.leader}. */
  readonly epoch: number;
}

interface MutableRecord {
  name: string;
  pid: number | undefined;
  address: string | undefined;
  process: ProcessState;
  status: StatusReport | undefined;
  knowledge: Map<string, Knowledge>;
  leader: string | undefined;
  epoch: number;
}

/** The demo's record of its cluster. */
export class ClusterView {
  /** Every change of every member's view, in the order the demo learnt of them. */
  readonly observations: Observation[] = [];
  /** Every signal the demo sent, in order. */
  readonly faults: Fault[] = [];
  /** Every change of every member's leader hint, in the order the demo learnt of them. */
  readonly leaderChanges: LeaderObservation[] = [];
  private readonly records = new Map<string, MutableRecord>();

  constructor(readonly names: readonly string[]) {
    for (const name of names) {
      this.records.set(name, {
        name,
        pid: undefined,
        address: undefined,
        process: 'forked',
        status: undefined,
        knowledge: new Map(),
        leader: undefined,
        epoch: 0,
      });
    }
  }

  /** The record of member `name`. */
  member(name: string): MemberRecord {
    return this.record(name);
  }

  /** How `observer` holds `member` now, as far as the demo knows. */
  knowledge(observer: string, member: string): Knowledge | undefined {
    return this.record(observer).knowledge.get(member);
  }

  /** The member process was forked. */
  started(name: string, pid: number | undefined): void {
    this.record(name).pid = pid;
  }

  /** The member reported the address it listens on. */
  ready(name: string, address: string): void {
    const r = this.record(name);
    r.address = address;
    if (r.process === 'forked') r.process = 'running';
  }

  /** The demo sent `signal` to `member` at `atMs`. */
  fault(signal: Fault['signal'], member: string, atMs: number): void {
    this.faults.push({ signal, member, atMs });
    const r = this.record(member);
    if (r.process === 'killed' || r.process === 'exited') return;
    r.process = signal === 'SIGKILL' ? 'killed' : signal === 'SIGSTOP' ? 'stopped' : 'running';
  }

  /** The member process ended (a killed one stays `killed`). */
  exited(name: string): void {
    const r = this.record(name);
    if (r.process !== 'killed') r.process = 'exited';
  }

  /**
   * An event of `observer`, seen at `atMs`. Returns the change it records, or undefined for what changes
   * no state (`update`: metadata).
   */
  event(observer: string, e: EventMessage, atMs: number): Observation | undefined {
    if (e.type === 'update' || !this.records.has(e.member)) return undefined;
    return this.observe(observer, e.member, e.type, e.incarnation, atMs, {
      cause: e.cause,
      ...(e.accuser === undefined ? {} : { accuser: e.accuser }),
    });
  }

  /**
   * A change of `observer`'s leader hint, made at `atMs`. Returns it, or undefined when the demo already
   * knew of it (a status report showed a later epoch first).
   */
  leader(observer: string, m: LeaderMessage, atMs: number): LeaderObservation | undefined {
    const r = this.record(observer);
    if (r.leader !== undefined && m.epoch <= r.epoch) return undefined;
    r.leader = m.leader;
    r.epoch = m.epoch;
    const o: LeaderObservation = {
      atMs,
      observer,
      leader: m.leader,
      previous: m.previous,
      epoch: m.epoch,
      cause: m.cause,
    };
    this.leaderChanges.push(o);
    return o;
  }

  /**
   * A status report of `observer`, taken at `atMs` and received at `receivedAtMs`. Returns the changes it
   * shows that no event had shown (usually none).
   */
  status(observer: string, s: StatusMessage, atMs: number, receivedAtMs: number): Observation[] {
    const r = this.record(observer);
    const changes: Observation[] = [];
    let incarnation = r.status?.incarnation ?? 0;
    for (const m of s.members) {
      if (m.name === observer) {
        incarnation = m.incarnation;
        continue;
      }
      if (!this.records.has(m.name)) continue;
      const change = this.observe(observer, m.name, m.state, m.incarnation, atMs, {});
      if (change !== undefined) changes.push(change);
      r.knowledge.set(m.name, { state: m.state, incarnation: m.incarnation, phi: m.phi });
    }
    r.status = { receivedAtMs, localHealth: s.localHealth, incarnation };
    // A member's messages arrive in order, so its changes came before this; the report adds the leader
    // its hint started with (epoch 0, which no change announces).
    if (r.leader === undefined || s.epoch > r.epoch) {
      r.leader = s.leader;
      r.epoch = s.epoch;
    }
    return changes;
  }

  private observe(
    observer: string,
    member: string,
    state: MemberStateName,
    incarnation: number,
    atMs: number,
    why: { readonly cause?: string; readonly accuser?: string },
  ): Observation | undefined {
    const r = this.record(observer);
    const held = r.knowledge.get(member);
    if (held !== undefined && held.state === state && held.incarnation === incarnation) return undefined;
    r.knowledge.set(member, { state, incarnation, phi: held?.phi ?? 0 });
    const o: Observation = { atMs, observer, member, state, incarnation, ...why };
    this.observations.push(o);
    return o;
  }

  private record(name: string): MutableRecord {
    const r = this.records.get(name);
    if (r === undefined) throw new Error(`ClusterView: no member ${name}`);
    return r;
  }
}
