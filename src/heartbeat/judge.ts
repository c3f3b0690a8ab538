/**
 * The per-peer state machine of the heartbeat monitor: it decides, on the evidence at hand, when a peer
 * goes Alive → Suspected (the phi of its silence reaches `suspectPhi`) and Suspected → Dead (phi reaches
 * `deadPhi`, or the suspicion timeout, stretched by local health, runs out), and reports each transition.
 * The heartbeats that bring a peer back are the core's to classify (`heartbeat-core.ts`); it reports the
 * transition through {@link PeerJudge.transition} too.
 *
 * Each peer has one timer, armed for the next moment its state can change (phi is inverted to find when
 * it reaches a threshold) instead of polling phi; heartbeats only push that moment later, so the timer is
 * left alone and re-armed when it wakes, about once per detection time per peer.
 */
import type { Awareness } from '../membership/awareness.js';
import type { MemberEvent, TransitionCause } from '../membership/events.js';
import type { FreezeGuard } from '../membership/freeze-guard.js';
import { ALIVE, DEAD, SUSPECT } from '../membership/member-state.js';
import type { Clock } from '../runtime/clock.js';
import type { HeartbeatConfig } from './config.js';
import { type Peer, peerStateName } from './peer.js';

const TRANSITION_TYPE = ['alive', 'suspect', 'dead'] as const;
const CROSSING_MARGIN_MS = 0.001;

/** What the judge counts: the transitions it decides. */
export interface JudgeCounters {
  suspicions: number;
  deaths: number;
}

/** Judges the peers of one monitor; holds no peer state of its own (that is in each {@link Peer}). */
export class PeerJudge {
  /**
   * @param name - this member's name: the accuser of every suspicion and death it reports
   * @param awareness - local health, whose multiplier stretches the suspicion timeout
   * @param freezeGuard - while it holds, silence before the wake is no evidence
   * @param emit - where transitions go (the environment)
   * @param isRunning - whether the monitor still runs; a stopped one judges nobody
   */
  constructor(
    private readonly name: string,
    private readonly config: HeartbeatConfig,
    private readonly clock: Clock,
    private readonly awareness: Awareness,
    private readonly freezeGuard: FreezeGuard | undefined,
    private readonly counters: JudgeCounters,
    private readonly emit: (event: MemberEvent) => void,
    private readonly isRunning: () => boolean,
  ) {}

  /**
   * Decides the state of `peer` on the evidence now, and arms its timer for the next moment that can
   * change it. While the freeze guard holds, silence and suspicion time before the wake do not count
   * (heartbeats sent meanwhile may be unread), so a peer is judged on what followed the wake, and judged
   * again on everything once fresh heartbeats release the guard.
   */
  review(peer: Peer): void {
    if (peer.removed || peer.state === DEAD || !this.isRunning()) return;
    const now = this.clock.now();
    const config = this.config;
    let evidenceFromMs = Number.NEGATIVE_INFINITY;
    const guard = this.freezeGuard;
    if (guard?.isHolding) {
      evidenceFromMs = guard.wokeAt;
      this.deferReview(peer, guard);
    }
    const silenceFromMs = Math.max(peer.lastHeardMs, evidenceFromMs);
    const phi = peer.detector.phi(now - (silenceFromMs - peer.lastHeardMs));
    if (peer.state !== SUSPECT) {
      if (phi < config.suspectPhi) {
        this.arm(peer, this.crossingAt(peer, silenceFromMs, config.suspectPhi), now);
        return;
      }
      peer.suspectedAtMs = now;
      this.counters.suspicions++;
      this.transition(peer, SUSPECT, 'phi-threshold', now);
      // Its listener may have stopped the monitor or removed the peer: then nobody is judged any more.
      if (peer.removed || !this.isRunning()) return;
    }
    const timeoutAtMs =
      Math.max(peer.suspectedAtMs, evidenceFromMs) + this.awareness.scale(config.suspicionTimeoutMs);
    // deadPhi Infinity is off: the normal model's phi itself turns infinite a few seconds into a silence.
    const phiConvicts = config.deadPhi !== Number.POSITIVE_INFINITY && phi >= config.deadPhi;
    if (phiConvicts || now >= timeoutAtMs) {
      peer.timer?.cancel();
      peer.timer = undefined;
      peer.timerDueMs = Number.POSITIVE_INFINITY;
      this.counters.deaths++;
      this.transition(peer, DEAD, phiConvicts ? 'phi-threshold' : 'suspicion-timeout', now);
      return;
    }
    this.arm(peer, Math.min(this.crossingAt(peer, silenceFromMs, config.deadPhi), timeoutAtMs), now);
  }

  /**
   * When phi of a silence counted from `fromMs` reaches `level`. Phi evaluated at the crossing found by
   * inverting it can be an ulp short of the level, so this aims a microsecond past it.
   */
  private crossingAt(peer: Peer, fromMs: number, level: number): number {
    if (level === Number.POSITIVE_INFINITY) return level;
    return fromMs + peer.detector.silenceAtPhi(level) + CROSSING_MARGIN_MS;
  }

  /** Reviews `peer` again once the freeze guard releases (one such review per peer is pending at most). */
  private deferReview(peer: Peer, guard: FreezeGuard): void {
    if (peer.reviewDeferred) return;
    peer.reviewDeferred = true;
    guard.convict(() => {
      peer.reviewDeferred = false;
      this.review(peer);
    });
  }

  /** Makes sure the timer of `peer` wakes no later than `dueMs`. */
  private arm(peer: Peer, dueMs: number, now: number): void {
    // A wake-up that finds nothing to do (see crossingAt) re-arms a millisecond later: it never spins.
    const due = dueMs > now ? dueMs : now + 1;
    if (peer.timer !== undefined) {
      if (peer.timerDueMs <= due) return; // it wakes first, and re-arms for the later moment then
      peer.timer.cancel();
    }
    peer.timerDueMs = due;
    peer.timer = this.clock.setTimer(due - now, peer.wake);
  }

  /**
   * Moves `peer` to `to` for `cause` and reports the transition; the core calls it too, for a peer its
   * heartbeats brought back. Counting is the caller's (the judge counts its own suspicions and deaths).
   */
  transition(
    peer: Peer,
    to: typeof ALIVE | typeof SUSPECT | typeof DEAD,
    cause: TransitionCause,
    now: number,
  ): void {
    const previous = peerStateName(peer.state);
    peer.state = to;
    const event: MemberEvent = {
      type: TRANSITION_TYPE[to],
      member: peer.name,
      address: peer.address,
      incarnation: peer.incarnation,
      previous,
      atMs: now,
      wallMs: this.clock.wallNow(),
      cause,
      // This member alone judges its peers: it is the accuser, and nobody confirms.
      ...(to === ALIVE ? {} : { accuser: this.name }),
      confirmations: 0,
      localHealth: this.awareness.score,
    };
    this.emit(event);
  }
}
