/**
 * What a member process of `fdkit demo` tells the demo, over the IPC channel of `child_process.fork`
 * (structured-clone serialization, so that a phi of Infinity arrives as Infinity). Members only send; the
 * demo stops a member by closing its channel. A member is another process, so what arrives is checked
 * before the demo relies on it.
 */
import type { MemberStateName } from '../../membership/member-state.js';

/** Sent once, when the member is bound and ready to be joined. */
export interface ReadyMessage {
  readonly kind: 'ready';
  /** The `host:port` the member listens on. */
  readonly address: string;
  /** The URL of its HTTP API and status page, when the demo asked it to serve one (`--http`). */
  readonly http?: string;
}

/** One membership event of the member, as it emitted it. */
export interface EventMessage {
  readonly kind: 'event';
  readonly type: 'alive' | 'suspect' | 'dead' | 'left' | 'update';
  /** The member the event is about. */
  readonly member: string;
  readonly incarnation: number;
  readonly cause: string;
  /** Who raised the suspicion or declared the death, when someone did. */
  readonly accuser?: string;
  /** Wall time of the event in the member, Unix ms. */
  readonly wallMs: number;
}

/** How the sender holds one member of the cluster. */
export interface MemberView {
  readonly name: string;
  readonly state: MemberStateName;
  readonly incarnation: number;
  /** Phi of the silence since the sender last heard from it. */
  readonly phi: number;
}

/** A change of the member's leader hint, as its `'leader'` event gave it. */
export interface LeaderMessage {
  readonly kind: 'leader';
  /** The member it names leader now. */
  readonly leader: string;
  readonly previous: string;
  /** Its hint's count of changes. */
  readonly epoch: number;
  readonly cause: string;
  /** Wall time of the change in the member, Unix ms. */
  readonly wallMs: number;
}

/** The member's view of the cluster and its own health, sent a few times a second. */
export interface StatusMessage {
  readonly kind: 'status';
  /** Wall time the view was taken, Unix ms. */
  readonly wallMs: number;
  /** The sender's Lifeguard local health score (0 is healthy). */
  readonly localHealth: number;
  /** The member its leader hint names (none once a resolver downed its side), and the hint's count of changes. */
  readonly leader: string | undefined;
  readonly epoch: number;
  /** Every member the sender knows, itself included. */
  readonly members: readonly MemberView[];
}

/** Anything a member sends. */
export type MemberMessage = ReadyMessage | EventMessage | LeaderMessage | StatusMessage;

const EVENT_TYPES: readonly string[] = ['alive', 'suspect', 'dead', 'left', 'update'];
const STATES: readonly string[] = ['alive', 'suspect', 'dead', 'left'];

/** `value` as a message, or undefined when it is not one. */
export function parseMemberMessage(value: unknown): MemberMessage | undefined {
  if (!isRecord(value)) return undefined;
  switch (value.kind) {
    case 'ready':
      return typeof value.address === 'string' && (value.http === undefined || typeof value.http === 'string')
        ? (value as unknown as ReadyMessage)
        : undefined;
    case 'event':
      return typeof value.type === 'string' &&
        EVENT_TYPES.includes(value.type) &&
        typeof value.member === 'string' &&
        isCount(value.incarnation) &&
        typeof value.cause === 'string' &&
        (value.accuser === undefined || typeof value.accuser === 'string') &&
        isTime(value.wallMs)
        ? (value as unknown as EventMessage)
        : undefined;
    case 'leader':
      return typeof value.leader === 'string' &&
        typeof value.previous === 'string' &&
        isCount(value.epoch) &&
        typeof value.cause === 'string' &&
        isTime(value.wallMs)
        ? (value as unknown as LeaderMessage)
        : undefined;
    case 'status':
      return isTime(value.wallMs) &&
        typeof value.localHealth === 'number' &&
        value.localHealth >= 0 &&
        typeof value.leader === 'string' &&
        isCount(value.epoch) &&
        Array.isArray(value.members) &&
        value.members.every(isMemberView)
        ? (value as unknown as StatusMessage)
        : undefined;
    default:
      return undefined;
  }
}

function isMemberView(value: unknown): boolean {
  return (
    isRecord(value) &&
    typeof value.name === 'string' &&
    typeof value.state === 'string' &&
    STATES.includes(value.state) &&
    isCount(value.incarnation) &&
    typeof value.phi === 'number' &&
    value.phi >= 0
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): boolean {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function isTime(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value);
}
