/**
 * The JSON of the agent's HTTP API (docs/http.md): what `/v1/members`, `/v1/self`, `/v1/leader`,
 * `/v1/health` and the `/v1/events` stream carry. The server, the command-line client and the status
 * page all read these shapes, so that none of them can drift from the others.
 */
import type { MemberStateName } from '../membership/member-state.js';

/** One member in `/v1/members` (an array of these, the local member included). */
export interface MemberJson {
  /** Its unique name. */
  readonly name: string;
  /** Where it is reached, as this member last heard it. */
  readonly address: string;
  /** Its state in this member's view. */
  readonly state: MemberStateName;
  /** The incarnation this member holds for it. */
  readonly incarnation: number;
  /** Its metadata as UTF-8 text when it decodes as such, else base64 (see `metaEncoding`). */
  readonly meta: string;
  /** How `meta` is written. */
  readonly metaEncoding: 'utf8' | 'base64';
  /** Wall time (Unix ms) of its last transition in this member's view; `null` when none was seen. */
  readonly since: number | null;
  /** Who raised its current suspicion or declared its death, when someone did. */
  readonly accuser: string | null;
  /** Independent confirmations of its current suspicion (0 unless suspect or dead). */
  readonly confirmations: number;
  /**
   * Phi of the silence since the last message from it (0 when untracked or never heard); an infinite
   * phi, which JSON cannot write, is written as `Number.MAX_VALUE`.
   */
  readonly phi: number;
  /** Smoothed probe round-trip time in ms, `null` when none was measured. */
  readonly rttMs: number | null;
  /** True for the member that serves this API. */
  readonly local: boolean;
}

/** `/v1/self`: the member that serves the API. */
export interface SelfJson {
  /** Its member name. */
  readonly name: string;
  /** The address other members reach it at. */
  readonly address: string;
  /** Its own incarnation. */
  readonly incarnation: number;
  /** Lifeguard local health: 0 is healthy, higher is worse. */
  readonly localHealth: number;
  /** Joined at least one seed, or started as the first member. */
  readonly joined: boolean;
  /** Broadcasts waiting in the gossip queue. */
  readonly pendingBroadcasts: number;
  /** The counters of `SwimNode.counters()`. */
  readonly counters: Readonly<Record<string, number>>;
}

/** `/v1/leader`: the Ω leader hint of this member (local, not agreed by anyone). */
export interface LeaderJson {
  /** The member named leader; null once the split-brain resolver downed this side (it names nobody). */
  readonly leader: string | null;
  /** How many times the hint's leader changed. */
  readonly epoch: number;
  /** True when the serving member is the leader. */
  readonly isLeader: boolean;
}

/** `/v1/health`: 200 when `status` is `ready` or `degraded`, 503 when `starting` or `left`. */
export interface HealthJson {
  /** `starting` until joined, `ready`, `degraded` while local health is above 0, `left` after a leave. */
  readonly status: 'starting' | 'ready' | 'degraded' | 'left';
  /** Lifeguard local health: 0 is healthy. */
  readonly localHealth: number;
  /** Joined at least one seed, or started as the first member. */
  readonly joined: boolean;
}

/**
 * One Server-Sent Event of `/v1/events`. The SSE `event:` field is `member` or `leader`, and `data:`
 * is this JSON on one line. Each event has an `id:` that counts up from 1 for the connection.
 */
export type StreamEventJson =
  | {
      /** A member event. */
      readonly kind: 'member';
      /** The transition: the member's new state, or `update` for new metadata. */
      readonly type: 'alive' | 'suspect' | 'dead' | 'left' | 'update';
      /** The member it is about. */
      readonly member: string;
      /** Its address at the time. */
      readonly address: string;
      /** The incarnation the event is about. */
      readonly incarnation: number;
      /** Its state before, `unknown` when just discovered. */
      readonly previous: MemberStateName | 'unknown';
      /** Why it happened (a `TransitionCause`). */
      readonly cause: string;
      /** Who raised the suspicion or declared the death, when someone did. */
      readonly accuser: string | null;
      /** Independent confirmations of the suspicion so far. */
      readonly confirmations: number;
      /** Wall time, Unix ms. */
      readonly t: number;
    }
  | {
      /** A change of the leader hint. */
      readonly kind: 'leader';
      /** The member now named leader. */
      readonly leader: string;
      /** The member named before. */
      readonly previous: string;
      /** The hint's changes so far, this one included. */
      readonly epoch: number;
      /** Why the lead moved (a `LeaderChangeCause`). */
      readonly cause: string;
      /** Wall time, Unix ms. */
      readonly t: number;
    };

/** The body of every error answer: 400, 401, 404, 405, 503. */
export interface ErrorJson {
  /** What went wrong. */
  readonly error: {
    /** A stable code, `FDKIT_HTTP_*`. */
    readonly code: string;
    /** For people: names the endpoint and the value refused. */
    readonly message: string;
  };
}
