/**
 * SWIM's failure detection (Das, Gupta and Motivala, 2002, section 3.1) with Lifeguard's nacks and local
 * health (Dadgar, Phillips and Currey, 2018). Once per protocol period a member pings the next target of
 * its randomized round-robin; without an ack within the probe timeout it asks `indirectChecks` members to
 * ping the target for it (ping-req), and they answer with the target's ack or, if it stays silent, a nack;
 * with no ack by the end of the period the target is suspected. Interval and timeout are stretched by the
 * local health multiplier, which rises with missed nacks and failed probes and falls with successes.
 */
import { ALIVE, UNKNOWN } from '../membership/member-state.js';
import type { Timer } from '../runtime/clock.js';
import type { AdaptiveTimeout } from './adaptive-timeout.js';
import type { SwimContext } from './context.js';
import { packetBytes } from './message-size.js';
import type { Ack, DeadUpdate, Nack, Ping, PingReq, SuspectUpdate, Update } from './messages.js';
import { hostSilenceWindowMs } from './timing.js';

/** What the prober asks of the other mechanisms. */
export interface ProberPort {
  /** What this member holds against `id`, sent along with pings of it (the suspicions). */
  accusationOf(id: number): SuspectUpdate | DeadUpdate | undefined;
  /** A suspect of this member's own to probe before the round's next target, or -1 (the suspicions). */
  ownSuspectToProbe(): number;
  /** This member is probing `id` now (the suspicions). */
  probing(id: number): void;
  /**
   * The probe of `id` failed; `counted`: a refusal counted it already; `silent`: its host accepted no
   * connection and sent nothing since the probe (the suspicions).
   */
  probeFailed(id: number, counted: boolean, silent: boolean): void;
  /** `id`'s host accepted a connection this member tried: it is up (the suspicions). */
  hostAnswered(id: number): void;
  /** Something arrived from the member called `name` (the suspicions). */
  heard(name: string): void;
  /** `id`'s host refused the connection of a late probe (the suspicions). */
  probeRefused(id: number): void;
  /** A protocol period starts (the death watch reopens watches then, a busy member speaks up). */
  periodStarted(): void;
  /** Whether `id` said it is busy (`backpressure.ts`): its late ack is excused (no helpers, no suspicion). */
  excuses(id: number): boolean;
  /** Whether `id` is spared helper duty (it said it is busy, and this member spares busy ones). */
  spares(id: number): boolean;
}

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
  /** A connection to its port was tried, and whether its host accepted it. */
  connectTried: boolean;
  hostAnswered: boolean;
  /** Something arrived from the target since the probe was sent. */
  heard: boolean;
  /** The next deadline of the probe (connection check, then ping-req), cancelled by the ack. */
  timer: Timer | undefined;
  /** A second probe of a member whose probe just failed (buddy system): never followed by a third. */
  readonly again: boolean;
  /** The target had said it was busy when its ack was late: no helpers were asked, nothing follows. */
  excused: boolean;
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
  /** The last probe that failed on its target's silence: only its connection may still answer for it. */
  private silentProbe: ProbeState | undefined;
  private readonly handlers = new Map<number, AckHandler>();
  private readonly helpers: number[] = [];
  // Predicates for the probe list, made once rather than a closure per tick.
  private readonly probeable: (id: number) => boolean;
  private readonly keep: (id: number) => boolean;
  private readonly onTick = (): void => this.tick();
  private tickDueMs = 0;
  private seq = 0;

  /** @param adaptiveTimeout - round-trip statistics, when the probe timeout adapts to them */
  constructor(
    private readonly ctx: SwimContext,
    private readonly port: ProberPort,
    readonly adaptiveTimeout: AdaptiveTimeout | undefined,
  ) {
    this.probeable = (id) => ctx.view.isProbeable(id);
    this.keep = (id) => ctx.view.isGossipTarget(id);
  }

  start(): void {
    const { clock, random, config } = this.ctx;
    // A random phase, so that members started together do not probe in lockstep.
    const delayMs = random.next() * config.probeIntervalMs;
    this.tickDueMs = clock.now() + delayMs;
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
    this.ctx.counters.nacksReceived++;
    this.handlers.get(seq)?.onNack();
  }

  /**
   * Acks a ping meant for this member. A member that pings while this member suspects it or holds it
   * dead (it was frozen, cut off, or the suspicion never reached it) gets the accusation in the ack, so
   * that it can refute at once instead of waiting for gossip or a state exchange to reach it.
   */
  answer(address: string, seq: number, from: string): void {
    const { view, name, outbox } = this.ctx;
    const updates: Update[] = [];
    const id = view.directory.find(from);
    if (id !== undefined) {
      const accusation = this.port.accusationOf(id);
      if (accusation !== undefined) updates.push(accusation);
    }
    outbox.sendPacket(address, { type: 'ack', seq, from: name, updates });
  }

  /**
   * A fallback ping came over a stream, whose source port says nothing: the ack goes, over a stream too,
   * to the address this member knows the prober by. A prober this member does not know gets no answer;
   * its probe still has the datagram paths.
   */
  answerStreamPing(ping: Ping): void {
    const { view, name, counters, outbox } = this.ctx;
    if (ping.target !== name) {
      counters.misdirectedPings++;
      return;
    }
    const id = view.directory.find(ping.from);
    if (id === undefined || view.table.stateOf(id) === UNKNOWN) return;
    counters.fallbackPingsAnswered++;
    const ack: Ack = { type: 'ack', seq: ping.seq, from: name, updates: [] };
    outbox.sendStream(view.directory.addressOf(id), ack, packetBytes(ack));
  }

  /** Acts as the helper of a ping-req: probes the target and relays its ack, or a nack on silence. */
  handlePingReq(fromAddress: string, req: PingReq): void {
    const { clock, config, lifecycle, counters, name } = this.ctx;
    // The nack leaves before the helper's own timeout runs out (Lifeguard, footnote 5): the asker sent the
    // ping-req one probe timeout into its period and closes the probe at the period's end, so a nack sent
    // after a full probe timeout arrives too late to count, and the asker would blame its own health for
    // every member that really died. An ack that comes later is still relayed; one that comes earlier
    // cancels the nack.
    const nackTimer = req.nack
      ? clock.setTimer(config.probeTimeoutMs * NACK_AT_FRACTION, () => {
          if (!lifecycle.isRunning) return;
          counters.nacksSent++;
          this.send(fromAddress, { type: 'nack', seq: req.seq, from: name, updates: [] });
        })
      : undefined;
    this.pingAddress(req.targetAddress, req.target, config.probeTimeoutMs, (ok) => {
      if (!ok) return;
      nackTimer?.cancel();
      this.send(fromAddress, { type: 'ack', seq: req.seq, from: name, updates: [] });
    });
  }

  /**
   * Pings member `id` once, outside the probe cycle; `done` learns whether it answered in time. With
   * `accuse`, the ping carries what this member holds against it, as probes do (buddy system).
   */
  pingOnce(id: number, timeoutMs: number, done: (acked: boolean) => void, accuse = false): void {
    const { directory } = this.ctx.view;
    const accusation = accuse ? this.port.accusationOf(id) : undefined;
    const updates: Update[] = accusation === undefined ? [] : [accusation];
    this.pingAddress(directory.addressOf(id), directory.nameOf(id), timeoutMs, done, updates);
  }

  /**
   * Whether member `id` answers now, directly or through helpers: a ping, then, without an ack within
   * `timeoutMs`, ping-reqs to `indirectChecks` members, with as long again for a relayed ack. Nothing
   * else follows from it (no suspicion, no health score): it serves the split-brain resolver, which
   * must tell a member cut off from this side from one that only lost a datagram or one link.
   */
  check(id: number, timeoutMs: number, done: (acked: boolean) => void): void {
    this.pingOnce(id, timeoutMs, (acked) => {
      if (acked || !this.ctx.lifecycle.isRunning) {
        done(acked);
        return;
      }
      this.askHelpers(id, this.awaitAck(timeoutMs, done), false);
    });
  }

  /** One ping outside the probe cycle: `done(true)` on the ack, `done(false)` after `timeoutMs` without. */
  private pingAddress(
    address: string,
    target: string,
    timeoutMs: number,
    done: (acked: boolean) => void,
    updates: Update[] = [],
  ): void {
    const seq = this.awaitAck(timeoutMs, done);
    this.send(address, { type: 'ping', seq, from: this.ctx.name, target, updates });
  }

  /** A new sequence number whose ack calls `done(true)`, or `done(false)` after `timeoutMs` without one. */
  private awaitAck(timeoutMs: number, done: (acked: boolean) => void): number {
    const seq = this.nextSeq();
    const timer = this.ctx.clock.setTimer(timeoutMs, () => {
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
    return seq;
  }

  /** Sends ping-reqs for `target` under `seq` to `indirectChecks` members held alive; returns how many. */
  private askHelpers(target: number, seq: number, nack: boolean): number {
    const { view, config, random, name } = this.ctx;
    const helpers = view.order.randomMembers(
      config.indirectChecks,
      random,
      (id) =>
        id !== target && id !== view.selfId && view.table.stateOf(id) === ALIVE && !this.port.spares(id),
      this.helpers,
    );
    const targetName = view.directory.nameOf(target);
    const targetAddress = view.directory.addressOf(target);
    for (const helper of helpers) {
      const req: PingReq = {
        type: 'ping-req',
        seq,
        from: name,
        target: targetName,
        targetAddress,
        nack,
        updates: [],
      };
      this.send(view.directory.addressOf(helper), req);
    }
    return helpers.length;
  }

  private nextSeq(): number {
    this.seq = (this.seq + 1) >>> 0;
    return this.seq;
  }

  private tick(): void {
    const { lifecycle, health, config, view, random, clock } = this.ctx;
    if (!lifecycle.isRunning) return;
    health.noteTimer(this.tickDueMs);
    // The previous probe's period ends now: it is decided before the next probe starts.
    this.finish();
    this.port.periodStarted();
    const intervalMs = health.awareness.scale(config.probeIntervalMs);
    const again = this.reprobe;
    this.reprobe = -1;
    let target = again >= 0 && view.isProbeable(again) ? again : this.port.ownSuspectToProbe();
    if (target < 0) target = view.order.next(random, this.probeable, this.keep);
    if (target >= 0) this.probe(target, target === again);
    this.tickDueMs = clock.now() + intervalMs;
    this.timer = clock.setTimer(intervalMs, this.onTick);
  }

  private probe(target: number, again: boolean): void {
    const { counters, clock, health, config, view, lifecycle, outbox, name } = this.ctx;
    counters.probes++;
    this.port.probing(target);
    const seq = this.nextSeq();
    const state: ProbeState = {
      seq,
      target,
      sentMs: clock.now(),
      indirectSeq: -1,
      fallbackSeq: -1,
      acked: false,
      nacks: 0,
      expectedNacks: 0,
      refused: false,
      connectTried: false,
      hostAnswered: false,
      heard: false,
      timer: undefined,
      again,
      excused: false,
    };
    this.current = state;
    this.handlers.set(seq, {
      onAck: () => {
        state.acked = true;
        // A timer that no longer has anything to do would still wake a real process up.
        state.timer?.cancel();
        health.freezeGuard?.probeAnswered(state.sentMs);
        const rttMs = clock.now() - state.sentMs;
        this.adaptiveTimeout?.record(rttMs);
        view.recordRtt(target, rttMs);
        this.ctx.measured?.('rtt', rttMs);
      },
      onNack: NOOP,
    });
    // Buddy system: a suspect learns of the suspicion from the probe itself and can refute at once.
    const buddy = this.port.accusationOf(target);
    const updates: Update[] = buddy === undefined ? [] : [buddy];
    const ping: Ping = { type: 'ping', seq, from: name, target: view.directory.nameOf(target), updates };
    this.send(view.directory.addressOf(target), ping);
    const timeoutMs = health.awareness.scale(this.adaptiveTimeout?.timeoutMs() ?? config.probeTimeoutMs);
    const late = (): boolean => !state.acked && this.current === state && lifecycle.isRunning;
    const indirect = (): void => {
      if (!late()) return;
      // A busy target said why its ack is late: helpers' pings would only add to its backlog.
      if (this.port.excuses(target)) state.excused = true;
      else this.indirect(state);
    };
    if (!outbox.canConnect) {
      state.timer = clock.setTimer(timeoutMs, indirect);
      return;
    }
    // One deadline at a time: the connection check, then the ping-req round.
    const connectAtMs = timeoutMs * CONNECT_AT_FRACTION;
    state.timer = clock.setTimer(connectAtMs, () => {
      if (!late()) return;
      this.connect(state);
      state.timer = clock.setTimer(timeoutMs - connectAtMs, indirect);
    });
  }

  /**
   * The ack is late: try a connection to the target's port as well (memberlist's TCP fallback probe,
   * reduced to what the kernel says). A refusal proves the process gone. An accepted connection proves
   * the host up, though not the process (a paused one accepts too): it keeps the suspicion from ending on
   * the host's silence. The attempt is given the rest of the period and the host silence, so that a lost
   * SYN is sent again (after 1 s, then 2 s more) before the silence convicts.
   */
  private connect(state: ProbeState): void {
    const { outbox, lifecycle, config } = this.ctx;
    state.connectTried = true;
    const onRefused = (): void => {
      if (state.acked || this.current !== state || !lifecycle.isRunning) return;
      // The probe has failed already; the period still runs its course (ping-req, health), so that a
      // refusal changes nothing but the evidence the suspicion carries.
      state.refused = true;
      this.port.probeRefused(state.target);
    };
    if (config.hostSilenceMs === 0) {
      outbox.tryConnect(state.target, onRefused);
      return;
    }
    const onAccepted = (): void => {
      state.hostAnswered = true;
      // After the period: the suspicion it raised may be about to end on the silence. An older probe's
      // connection says nothing of it: its SYN may have left before the host went down.
      if (this.silentProbe === state && lifecycle.isRunning) this.port.hostAnswered(state.target);
    };
    const timeoutMs = config.probeIntervalMs + hostSilenceWindowMs(config, this.ctx.view.clusterSize);
    outbox.tryConnect(state.target, onRefused, onAccepted, timeoutMs);
  }

  /** Something arrived from the member called `name`: a late probe's target that sends is not silent. */
  heardFrom(name: string): void {
    this.port.heard(name);
    const state = this.current;
    if (state === undefined || state.heard || state.acked) return;
    if (this.ctx.view.directory.nameOf(state.target) === name) state.heard = true;
  }

  private finish(): void {
    const state = this.current;
    if (state === undefined) return;
    this.current = undefined;
    this.handlers.delete(state.seq);
    this.handlers.delete(state.indirectSeq);
    this.handlers.delete(state.fallbackSeq);
    const { awareness, freezeGuard } = this.ctx.health;
    const { config } = this.ctx;
    if (state.acked) {
      awareness.apply(-1);
      return;
    }
    // Sent before this member froze: its silence says nothing about the target.
    if (freezeGuard?.isStale(state.sentMs)) return;
    // A busy target said why it is late: its silence says nothing either, nor about this member's health.
    if (state.excused || this.port.excuses(state.target)) {
      this.ctx.counters.busyExcused++;
      return;
    }
    // Lifeguard: nacks that did not come mean our own links or process are the problem.
    awareness.apply(state.expectedNacks > 0 ? state.expectedNacks - state.nacks : 1);
    // A nack is a second vantage point that found the target silent too, from a member this one can
    // reach: this member is not the one cut off.
    const silent =
      config.hostSilenceMs > 0 &&
      state.connectTried &&
      !state.hostAnswered &&
      !state.heard &&
      !state.refused &&
      state.nacks > 0;
    if (silent) this.silentProbe = state;
    this.port.probeFailed(state.target, state.refused, silent);
    // The suspicion just raised travels with the next probe of the suspect (buddy system), one period
    // later rather than a round later: if it or the refutation is lost, the suspect still hears it directly.
    // Once only: probing a dead member period after period would hold up the rest of the round.
    if (!state.again) this.reprobe = state.target;
  }

  private indirect(state: ProbeState): void {
    const { target } = state;
    const { view, counters } = this.ctx;
    const seq = this.nextSeq();
    state.indirectSeq = seq;
    this.handlers.set(seq, {
      onAck: () => {
        state.acked = true;
      },
      onNack: () => {
        state.nacks++;
      },
    });
    const helpers = this.askHelpers(target, seq, true);
    state.expectedNacks = helpers;
    counters.indirectProbes += helpers;
    const targetName = view.directory.nameOf(target);
    const targetAddress = view.directory.addressOf(target);
    if (!state.refused) this.fallback(state, targetName, targetAddress);
  }

  /**
   * memberlist's TCP fallback probe, sent with the ping-reqs: the same ping over a stream, answered by an
   * ack over a stream. A member whose datagrams are dropped (a firewall, a lossy path that TCP's
   * retransmissions get through) then is not suspected for it. Not sent after a refusal: nothing listens.
   */
  private fallback(state: ProbeState, target: string, address: string): void {
    const { counters, outbox, name } = this.ctx;
    const seq = this.nextSeq();
    state.fallbackSeq = seq;
    this.handlers.set(seq, {
      onAck: () => {
        if (state.acked) return;
        state.acked = true;
        counters.fallbackAcks++;
      },
      onNack: NOOP,
    });
    const ping: Ping = { type: 'ping', seq, from: name, target, updates: [] };
    counters.fallbackPings++;
    outbox.sendStream(address, ping, packetBytes(ping));
  }

  private send(address: string, packet: Ping | PingReq | Ack | Nack): void {
    this.ctx.outbox.sendPacket(address, packet);
  }
}
