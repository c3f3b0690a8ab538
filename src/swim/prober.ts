/**
 * SWIM's failure detection (Das, Gupta and Motivala, 2002, section 3.1) with Lifeguard's nacks and local
 * health (Dadgar, Phillips and Currey, 2018). Once per protocol period a member pings the next target of
 * its randomized round-robin; without an ack within the probe timeout it asks `indirectChecks` members to
 * ping the target for it (ping-req), and they answer with the target's ack or, if it stays silent, a nack;
 * with no ack by the end of the period the target is suspected. Interval and timeout are stretched by the
 * local health multiplier, which rises with missed nacks and failed probes and falls with successes.
 */

import { ALIVE } from '../membership/member-state.js';
import type { Timer } from '../runtime/clock.js';
import type { SwimCore } from './core.js';
import { packetBytes } from './message-size.js';
import type { Ack, Nack, Ping, PingReq, Update } from './messages.js';

interface AckHandler {
  onAck(): void;
  onNack(): void;
}

interface ProbeState {
  readonly seq: number;
  readonly target: number;
  readonly sentMs: number;
  /** Sequence number of the ping-reqs, once sent (their acks must not be taken for direct round trips). */
  indirectSeq: number;
  /** Sequence number of the fallback ping over a stream, once sent. */
  fallbackSeq: number;
  acked: boolean;
  nacks: number;
  expectedNacks: number;
  /** Its port refused a connection: the failure is already counted. */
  refused: boolean;
  /** The next deadline of the probe (connection check, then ping-req), cancelled by the ack. */
  timer: Timer | undefined;
  /** A second probe of a member whose probe just failed (buddy system): never followed by a third. */
  readonly again: boolean;
}

const NOOP = (): void => {};
/**
 * When a probe whose ack is late also tries a connection, as a fraction of the probe timeout: late enough
 * that a healthy member has almost always answered (a LAN round trip is well under a millisecond), early
 * enough that a refusal is known before the ping-req round.
 */
const CONNECT_AT_FRACTION = 0.2;
/** When a ping-req helper answers a nack, as a fraction of its probe timeout. */
const NACK_AT_FRACTION = 0.8;

/**
 * Timers that outlive `stop()` find the member stopped and do nothing, so they are not tracked; the one
 * recurring timer is cancelled.
 */
export class Prober {
  private timer: Timer | undefined;
  private current: ProbeState | undefined;
  /** A member whose probe just failed, probed again next period (see `finish`). */
  private reprobe = -1;
  private readonly handlers = new Map<number, AckHandler>();
  private readonly helpers: number[] = [];
  // Predicates for the probe list, made once rather than a closure per tick.
  private readonly probeable: (id: number) => boolean;
  private readonly keep: (id: number) => boolean;
  private readonly onTick = (): void => this.tick();
  private tickDueMs = 0;

  constructor(private readonly core: SwimCore) {
    this.probeable = (id) => core.isProbeable(id);
    this.keep = (id) => core.isGossipTarget(id);
  }

  start(): void {
    const { clock, random } = this.core.env;
    // A random phase, so that members started together do not probe in lockstep.
    const delayMs = random.next() * this.core.config.probeIntervalMs;
    this.tickDueMs = this.core.now() + delayMs;
    this.timer = clock.setTimer(delayMs, this.onTick);
  }

  stop(): void {
    this.timer?.cancel();
    this.current = undefined;
    this.handlers.clear();
  }

  handleAck(seq: number): void {
    this.handlers.get(seq)?.onAck();
  }

  handleNack(seq: number): void {
    this.core.counters.nacksReceived++;
    this.handlers.get(seq)?.onNack();
  }

  /** Acts as the helper of a ping-req: probes the target and relays its ack, or a nack on silence. */
  handlePingReq(fromAddress: string, req: PingReq): void {
    const core = this.core;
    let acked = false;
    // The nack leaves before the helper's own timeout runs out (Lifeguard, footnote 5): the asker sent the
    // ping-req one probe timeout into its period and closes the probe at the period's end, so a nack sent
    // after a full probe timeout arrives too late to count, and the asker would blame its own health for
    // every member that really died. An ack that comes later is still relayed.
    const nackTimer = req.nack
      ? core.env.clock.setTimer(core.config.probeTimeoutMs * NACK_AT_FRACTION, () => {
          if (acked || !core.isRunning) return;
          core.counters.nacksSent++;
          this.send(fromAddress, { type: 'nack', seq: req.seq, from: core.name, updates: [] });
        })
      : undefined;
    this.pingAddress(req.targetAddress, req.target, core.config.probeTimeoutMs, (ok) => {
      if (!ok) return;
      acked = true;
      nackTimer?.cancel();
      this.send(fromAddress, { type: 'ack', seq: req.seq, from: core.name, updates: [] });
    });
  }

  /**
   * Pings member `id` once, outside the probe cycle; `done` learns whether it answered in time. With
   * `accuse`, the ping carries what this member holds against it, as probes do (buddy system).
   */
  pingOnce(id: number, timeoutMs: number, done: (acked: boolean) => void, accuse = false): void {
    const { directory } = this.core;
    const accusation = accuse ? this.core.accusationOf(id) : undefined;
    const updates: Update[] = accusation === undefined ? [] : [accusation];
    this.pingAddress(directory.addressOf(id), directory.nameOf(id), timeoutMs, done, updates);
  }

  /** One ping outside the probe cycle: `done(true)` on the ack, `done(false)` after `timeoutMs` without. */
  private pingAddress(
    address: string,
    target: string,
    timeoutMs: number,
    done: (acked: boolean) => void,
    updates: Update[] = [],
  ): void {
    const core = this.core;
    const seq = core.nextSeq();
    const timer = core.env.clock.setTimer(timeoutMs, () => {
      this.handlers.delete(seq);
      done(false);
    });
    this.handlers.set(seq, {
      onAck: () => {
        timer.cancel();
        this.handlers.delete(seq);
        done(true);
      },
      onNack: NOOP,
    });
    this.send(address, { type: 'ping', seq, from: core.name, target, updates });
  }

  private tick(): void {
    const core = this.core;
    if (!core.isRunning) return;
    core.noteTimer(this.tickDueMs);
    // The previous probe's period ends now: it is decided before the next probe starts.
    this.finish();
    core.deathWatch?.tick();
    const intervalMs = core.awareness.scale(core.config.probeIntervalMs);
    const again = this.reprobe;
    this.reprobe = -1;
    let target = again >= 0 && core.isProbeable(again) ? again : core.ownSuspectToProbe();
    if (target < 0) target = core.order.next(core.env.random, this.probeable, this.keep);
    if (target >= 0) this.probe(target, target === again);
    this.tickDueMs = core.now() + intervalMs;
    this.timer = core.env.clock.setTimer(intervalMs, this.onTick);
  }

  private probe(target: number, again: boolean): void {
    const core = this.core;
    core.counters.probes++;
    core.probing(target);
    const seq = core.nextSeq();
    const state: ProbeState = {
      seq,
      target,
      sentMs: core.now(),
      indirectSeq: -1,
      fallbackSeq: -1,
      acked: false,
      nacks: 0,
      expectedNacks: 0,
      refused: false,
      timer: undefined,
      again,
    };
    this.current = state;
    this.handlers.set(seq, {
      onAck: () => {
        state.acked = true;
        // A timer that no longer has anything to do would still wake a real process up.
        state.timer?.cancel();
        core.freezeGuard?.probeAnswered(state.sentMs);
        core.adaptiveTimeout?.record(core.now() - state.sentMs);
      },
      onNack: NOOP,
    });
    // Buddy system: a suspect learns of the suspicion from the probe itself and can refute at once.
    const buddy = core.accusationOf(target);
    const updates: Update[] = buddy === undefined ? [] : [buddy];
    const ping: Ping = { type: 'ping', seq, from: core.name, target: core.directory.nameOf(target), updates };
    this.send(core.directory.addressOf(target), ping);
    const timeoutMs = core.awareness.scale(core.adaptiveTimeout?.timeoutMs() ?? core.config.probeTimeoutMs);
    const late = (): boolean => !state.acked && this.current === state && core.isRunning;
    const indirect = (): void => {
      if (late()) this.indirect(state);
    };
    if (core.env.probeConnect === undefined) {
      state.timer = core.env.clock.setTimer(timeoutMs, indirect);
      return;
    }
    // One deadline at a time: the connection check, then the ping-req round.
    const connectAtMs = timeoutMs * CONNECT_AT_FRACTION;
    state.timer = core.env.clock.setTimer(connectAtMs, () => {
      if (!late()) return;
      this.connect(state);
      state.timer = core.env.clock.setTimer(timeoutMs - connectAtMs, indirect);
    });
  }

  /**
   * The ack is late: try a connection to the target's port as well (memberlist's TCP fallback probe,
   * reduced to what the kernel says). Only a refusal counts; an accepted connection proves nothing (a
   * paused process accepts too), and silence is what the ping-req round is for.
   */
  private connect(state: ProbeState): void {
    const core = this.core;
    core.tryConnect(state.target, () => {
      if (state.acked || this.current !== state || !core.isRunning) return;
      // The probe has failed already; the period still runs its course (ping-req, health), so that a
      // refusal changes nothing but the evidence the suspicion carries.
      state.refused = true;
      core.probeRefused(state.target);
    });
  }

  private finish(): void {
    const state = this.current;
    if (state === undefined) return;
    this.current = undefined;
    this.handlers.delete(state.seq);
    this.handlers.delete(state.indirectSeq);
    this.handlers.delete(state.fallbackSeq);
    const core = this.core;
    if (state.acked) {
      core.awareness.apply(-1);
      return;
    }
    // Sent before this member froze: its silence says nothing about the target.
    if (core.freezeGuard?.isStale(state.sentMs)) return;
    // Lifeguard: nacks that did not come mean our own links or process are the problem.
    core.awareness.apply(state.expectedNacks > 0 ? state.expectedNacks - state.nacks : 1);
    core.probeFailed(state.target, state.refused);
    // The suspicion just raised travels with the next probe of the suspect (buddy system), one period
    // later rather than a round later: if it or the refutation is lost, the suspect still hears it directly.
    // Once only: probing a dead member period after period would hold up the rest of the round.
    if (!state.again) this.reprobe = state.target;
  }

  private indirect(state: ProbeState): void {
    const { target } = state;
    const core = this.core;
    const seq = core.nextSeq();
    state.indirectSeq = seq;
    this.handlers.set(seq, {
      onAck: () => {
        state.acked = true;
      },
      onNack: () => {
        state.nacks++;
      },
    });
    const helpers = core.order.randomMembers(
      core.config.indirectChecks,
      core.env.random,
      (id) => id !== target && id !== core.selfId && core.table.stateOf(id) === ALIVE,
      this.helpers,
    );
    state.expectedNacks = helpers.length;
    core.counters.indirectProbes += helpers.length;
    const targetName = core.directory.nameOf(target);
    const targetAddress = core.directory.addressOf(target);
    for (const helper of helpers) {
      const req: PingReq = {
        type: 'ping-req',
        seq,
        from: core.name,
        target: targetName,
        targetAddress,
        nack: true,
        updates: [],
      };
      this.send(core.directory.addressOf(helper), req);
    }
    if (!state.refused) this.fallback(state, targetName, targetAddress);
  }

  /**
   * memberlist's TCP fallback probe, sent with the ping-reqs: the same ping over a stream, answered by an
   * ack over a stream. A member whose datagrams are dropped (a firewall, a lossy path that TCP's
   * retransmissions get through) then is not suspected for it. Not sent after a refusal: nothing listens.
   */
  private fallback(state: ProbeState, target: string, address: string): void {
    const core = this.core;
    const seq = core.nextSeq();
    state.fallbackSeq = seq;
    this.handlers.set(seq, {
      onAck: () => {
        if (state.acked) return;
        state.acked = true;
        core.counters.fallbackAcks++;
      },
      onNack: NOOP,
    });
    const ping: Ping = { type: 'ping', seq, from: core.name, target, updates: [] };
    core.counters.fallbackPings++;
    core.env.sendStream(address, ping, packetBytes(ping));
  }

  private send(address: string, packet: Ping | PingReq | Ack | Nack): void {
    this.core.sendPacket(address, packet);
  }
}
