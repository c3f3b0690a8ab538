/**
 * SWIM's suspicion (Das, Gupta and Motivala, 2002, section 4.2) with Lifeguard's confirmations and
 * dynamic timeout (`suspicion.ts`), fdkit's kernel evidence (refused connections, two of which end a
 * suspicion early) and the last word: a suspect is pinged once more before this member declares it dead
 * on others' word. Also what this member holds against a suspect, which the buddy system sends it.
 */
import {
  DEAD,
  LEFT,
  overrides,
  type StateCode,
  SUSPECT,
  stateName,
  UNKNOWN,
} from '../membership/member-state.js';
import type { SwimContext } from './context.js';
import type { MemberSuspicion } from './core-types.js';
import { recheckSilence } from './host-silence.js';
import { jumpsAhead } from './incarnation-jump.js';
import type { SuspicionSource } from './member-view.js';
import type { DeadUpdate, SuspectUpdate } from './messages.js';
import type { Reporter } from './reporter.js';
import type { SelfState } from './self.js';
import { REFUSALS_TO_CONVICT, Suspicion } from './suspicion.js';
import { hostSilenceWindowMs, suspicionMinMs } from './timing.js';

const EMPTY = new Uint8Array(0);

/** What the suspicions ask of the other mechanisms. */
export interface SuspicionsPort {
  /** The suspicion of `id` ran out: declare it dead (the membership rules). */
  declareDead(d: DeadUpdate, suspicion: Suspicion): void;
  /** Whether `id` came back from dead or left lately (the membership rules). */
  cameBackRecently(id: number): boolean;
  /** Pings `id` once, outside the probe cycle, carrying the accusation if `accuse` (the prober). */
  pingOnce(id: number, timeoutMs: number, done: (acked: boolean) => void, accuse: boolean): void;
}

export class Suspicions implements SuspicionSource {
  private readonly running = new Map<number, Suspicion>();

  constructor(
    private readonly ctx: SwimContext,
    private readonly self: SelfState,
    private readonly reporter: Reporter,
    private readonly port: SuspicionsPort,
  ) {}

  /** Ends the suspicion of `id`, if any, and returns it (not cancelled: the caller decides). */
  take(id: number): Suspicion | undefined {
    const suspicion = this.running.get(id);
    this.running.delete(id);
    return suspicion;
  }

  /** The accuser and the confirmations of the running suspicion of `id`, if one runs. */
  suspicionOf(id: number): MemberSuspicion | undefined {
    const suspicion = this.running.get(id);
    if (suspicion === undefined) return undefined;
    return { accuser: suspicion.accuser, confirmations: suspicion.confirmations };
  }

  /** Cancels every suspicion: the member stops. */
  stop(): void {
    for (const suspicion of this.running.values()) suspicion.cancel();
    this.running.clear();
  }

  /** Applies a suspicion of a member, raised here or gossiped. */
  suspect(s: SuspectUpdate): void {
    const { view, config, counters, clock, outbox } = this.ctx;
    const id = view.directory.find(s.name);
    if (id === undefined) return;
    if (id === view.selfId) {
      this.self.accused(s.incarnation, 'suspect', s.from);
      return;
    }
    const current = view.table.stateOf(id);
    if (current === UNKNOWN) return;
    // An accusation far above the life held is forged or about a life this member never heard of; its
    // own probes cover the member's liveness either way (`incarnation-jump.ts`).
    if (jumpsAhead(s.incarnation, view.table.incarnationOf(id))) {
      counters.incarnationJumps++;
      return;
    }
    if (this.isStaleRumour(id, current, s.incarnation)) return;
    if (current === SUSPECT) {
      // Another member suspects it too: a confirmation that shortens the timeout, worth passing on.
      const suspicion = this.running.get(id);
      if (suspicion === undefined) return;
      const confirmed = suspicion.confirm(s.from);
      const witnessed = s.refused === true && suspicion.witnessRefusal(s.from, config.probeTimeoutMs);
      if (confirmed || witnessed) outbox.enqueue(s, id);
      if (s.refused === true) this.checkRefusal(id, suspicion);
      return;
    }
    if (!overrides(SUSPECT, s.incarnation, current, view.table.incarnationOf(id))) return;
    const now = clock.now();
    view.table.set(id, SUSPECT, s.incarnation, now);
    outbox.enqueue(s, id);
    if (s.from === this.ctx.name) counters.suspicionsRaised++;
    const n = view.clusterSize;
    // Expected confirmations (memberlist): suspicionMult − 2, or none when the cluster is too small to
    // provide them, taking out this member and the suspect.
    const expected = n - 2 < config.suspicionMult - 2 ? 0 : config.suspicionMult - 2;
    const minMs = suspicionMinMs(config, n);
    const maxMs = config.suspicionMaxTimeoutMult * minMs;
    const incarnation = s.incarnation;
    const suspicion = new Suspicion(s.from, expected, minMs, maxMs, clock, (dueMs) => {
      const guard = this.ctx.health.freezeGuard;
      this.ctx.health.noteTimer(dueMs);
      // The silence convicts only a host that went silent alone: if other hosts went silent to this
      // member too, a partition is likelier than hosts failing together, and Lifeguard's timeout outlasts
      // short ones. Suspicions of members whose hosts answer (slow, paused, behind loss) do not count.
      if (suspicion.endsBySilence && this.othersSilent(suspicion)) {
        suspicion.silenceDoubted();
        return;
      }
      const conclude = (): void => {
        if (this.running.get(id) !== suspicion) return;
        this.running.delete(id);
        if (view.table.stateOf(id) !== SUSPECT || view.table.incarnationOf(id) !== incarnation) return;
        counters.deathsDeclared++;
        this.port.declareDead({ kind: 'dead', name: s.name, incarnation, from: this.ctx.name }, suspicion);
      };
      const lastWord = (): void => this.lastWord(id, suspicion, conclude);
      if (guard === undefined) lastWord();
      else guard.convict(lastWord);
    });
    this.running.set(id, suspicion);
    if (s.refused === true) suspicion.witnessRefusal(s.from, config.probeTimeoutMs);
    this.reporter.member(
      'suspect',
      id,
      stateName(current),
      s.from !== this.ctx.name
        ? 'suspect-gossip'
        : s.refused === true
          ? 'connection-refused'
          : 'probe-failed',
      suspicion,
    );
    if (s.refused === true) this.checkRefusal(id, suspicion);
  }

  /**
   * Our probe of `id` failed: suspect it, as if we had gossiped it ourselves. `counted`: the failure was
   * counted already, when the member's port refused a connection. `silent`: its host accepted no
   * connection and sent nothing since, and a helper's nack came; the suspicion then ends `hostSilenceMs`
   * after this evidence unless the host is heard from before.
   */
  probeFailed(id: number, counted: boolean, silent: boolean): void {
    const { view, counters, config, clock } = this.ctx;
    if (!counted) counters.probesFailed++;
    if (!view.isProbeable(id)) return;
    this.suspect({
      kind: 'suspect',
      name: view.directory.nameOf(id),
      incarnation: view.table.incarnationOf(id),
      from: this.ctx.name,
    });
    // The window runs from this evidence, also when the suspicion had come by gossip before: the
    // connection tried with the probe gets its SYNs retransmitted, and the suspect hears of it, before it
    // ends.
    const suspicion = this.running.get(id);
    if (!silent || config.hostSilenceMs === 0 || suspicion === undefined) return;
    // Back from the dead lately: a flapping link, not a host going down.
    if (this.port.cameBackRecently(id)) return;
    // A second silent probe (the buddy re-probe) keeps the first window and its rechecks.
    if (suspicion.isSilent) return;
    const silenceMs = hostSilenceWindowMs(config, view.clusterSize);
    const deadlineMs = clock.now() + silenceMs;
    suspicion.hostSilent(deadlineMs);
    const { outbox, lifecycle } = this.ctx;
    recheckSilence(
      {
        clock,
        isCurrent: (s) => lifecycle.isRunning && this.running.get(id) === s,
        tryConnect: (timeoutMs, onAccepted) =>
          outbox.tryConnect(id, () => this.witnessRefused(id), onAccepted, timeoutMs),
      },
      suspicion,
      silenceMs,
      deadlineMs,
    );
  }

  /**
   * Whether the host of a suspect other than `suspicion`'s went silent to this member too (and has not
   * been heard from since), whether or not its own silence was doubted already: in a partition, every
   * host of the other side stays silent, and each new one finds the earlier ones.
   */
  private othersSilent(suspicion: Suspicion): boolean {
    for (const other of this.running.values()) if (other !== suspicion && other.wentSilent) return true;
    return false;
  }

  /** `id`'s host accepted a connection of this member's: its silence no longer ends a suspicion. */
  hostAnswered(id: number): void {
    this.running.get(id)?.hostHeard();
  }

  /** Something arrived from the member called `name`: the same, if this member suspects it. */
  heardFrom(name: string): void {
    if (this.running.size === 0) return;
    const id = this.ctx.view.directory.find(name);
    if (id !== undefined) this.running.get(id)?.hostHeard();
  }

  /** This member's own connection to `id`, whose ack was late, was refused. */
  probeRefused(id: number): void {
    this.ctx.counters.probesFailed++;
    this.witnessRefused(id);
  }

  /**
   * This member saw `id`'s host refuse a connection (a late probe's, or one tried after its watch
   * closed): evidence that its process is gone, raised as a suspicion or added to one.
   */
  witnessRefused(id: number): void {
    const { view, config, outbox, name: self } = this.ctx;
    if (!view.isProbeable(id)) return;
    const name = view.directory.nameOf(id);
    const incarnation = view.table.incarnationOf(id);
    const suspicion = this.running.get(id);
    if (suspicion !== undefined) {
      // Already suspected: our refusal is a witness, worth gossiping.
      if (suspicion.witnessRefusal(self, config.probeTimeoutMs)) {
        suspicion.connectTried = true;
        outbox.enqueue({ kind: 'suspect', name, incarnation, from: self, refused: true }, id);
      }
      return;
    }
    this.suspect({ kind: 'suspect', name, incarnation, from: self, refused: true });
  }

  /**
   * What this member holds against `id`: a suspect update while it suspects it, a dead update while it
   * holds it dead, undefined otherwise. The buddy system sends it to the accused.
   */
  accusationOf(id: number): SuspectUpdate | DeadUpdate | undefined {
    const { view, name } = this.ctx;
    const state = view.table.stateOf(id);
    if (state !== SUSPECT && state !== DEAD && state !== LEFT) return undefined;
    const member = view.directory.nameOf(id);
    // A member held left gets its own leave back: the echo its `leave()` waits for.
    return {
      kind: state === SUSPECT ? 'suspect' : 'dead',
      name: member,
      incarnation: view.table.incarnationOf(id),
      from: state === SUSPECT ? (this.running.get(id)?.accuser ?? name) : state === LEFT ? member : name,
    };
  }

  /**
   * The member this one suspects on its own evidence whose suspicion ends first, if it ends before the
   * probe after next and the suspect was not probed in the last period; else -1. The accuser probes it
   * once more, the accusation attached (buddy system): the suspicion's gossip may never have reached it,
   * as when the accuser was cut off by a partition that has healed since, and a suspect that never hears
   * of its suspicion cannot refute it (found by the simulator: a cut-off member convicted a live one 3 s
   * after the heal). Near the deadline only, so that suspicions do not hold up the round.
   */
  ownSuspectToProbe(): number {
    if (this.running.size === 0) return -1;
    const { clock, health, config, view, name } = this.ctx;
    const now = clock.now();
    const periodMs = health.awareness.scale(config.probeIntervalMs);
    let best = -1;
    let bestDeadline = now + 2 * periodMs;
    for (const [id, suspicion] of this.running) {
      if (suspicion.accuser !== name || now - suspicion.probedAtMs < periodMs) continue;
      const deadline = suspicion.deadline();
      if (deadline < bestDeadline && view.isProbeable(id)) {
        best = id;
        bestDeadline = deadline;
      }
    }
    return best;
  }

  /** The prober is pinging `id` now. */
  probing(id: number): void {
    const suspicion = this.running.get(id);
    if (suspicion !== undefined) suspicion.probedAtMs = this.ctx.clock.now();
  }

  /**
   * Whether a suspicion at `incarnation` is older than what this member knows of `id`. If so, its author
   * missed the news (the refutation, or the death), most likely cut off while it was gossiped: the news is
   * queued again, once, so that it reaches the author instead of the stale suspicion running its course
   * there (a refuted member declared dead, or a dead one held suspect for the longest timeout).
   */
  private isStaleRumour(id: number, current: StateCode, incarnation: number): boolean {
    const { view, outbox } = this.ctx;
    const known = view.table.incarnationOf(id);
    const final = current === DEAD || current === LEFT;
    if (final ? incarnation > known : incarnation >= known) return false;
    if (current === SUSPECT || outbox.isQueued(id)) return true;
    const name = view.directory.nameOf(id);
    if (final) {
      outbox.enqueue(
        { kind: 'dead', name, incarnation: known, from: current === LEFT ? name : this.ctx.name },
        id,
      );
    } else {
      const meta = view.table.metadataOf(id) ?? EMPTY;
      outbox.enqueue(
        { kind: 'alive', name, address: view.directory.addressOf(id), incarnation: known, meta },
        id,
      );
    }
    return true;
  }

  /**
   * The suspect's last word before this member declares it dead. A member that only heard of the suspicion
   * may have missed the refutation: cut off while the suspect's alive message was gossiped, it held the
   * suspicion until the timeout, and would declare a live member dead (memberlist does). So it pings the
   * suspect once, carrying the accusation; a live suspect refutes before it acks, and the ack brings the
   * refutation back. Silence convicts, one probe timeout later. A suspicion that two refused connections
   * proved, and the member whose own probe of the suspect failed within the last two probe intervals,
   * convict at once: they have fresh first-hand evidence, and the first one's declaration usually reaches
   * the others before their own timeouts. An accuser whose evidence is older gives the last word too: its
   * probes may have failed inside a partition that has healed since, with the suspicion's gossip spent
   * there, so that the suspect never heard of it (the simulator found live members convicted that way
   * seconds after a heal; {@link Suspicions.ownSuspectToProbe} usually refreshes the evidence first).
   */
  private lastWord(id: number, suspicion: Suspicion, conclude: () => void): void {
    if (this.running.get(id) !== suspicion) return;
    const { clock, config, counters, health, name } = this.ctx;
    // The window stays two unscaled probe intervals even when the health score stretches the probes:
    // a member with a raised score is the one whose old evidence most needs the recheck. Scaling it
    // by the score gave false deaths in the simulator (paused and partitioned members convicted).
    const fresh =
      suspicion.accuser === name && clock.now() - suspicion.probedAtMs <= 2 * config.probeIntervalMs;
    if (fresh || suspicion.refusedBy.length >= REFUSALS_TO_CONVICT) {
      conclude();
      return;
    }
    counters.lastWords++;
    const timeoutMs = health.awareness.scale(config.probeTimeoutMs);
    this.port.pingOnce(
      id,
      timeoutMs,
      (acked) => {
        if (!acked) conclude();
        // Answered: it is alive, and its refutation is on its way if the ack did not carry it. The
        // suspicion stays until then; this member's next probe of it carries the accusation again.
        else counters.lastWordsAnswered++;
      },
      true,
    );
  }

  /**
   * Another member's connection to a suspect was refused: try one of our own, once per suspicion. A
   * refusal here is the second witness that ends the suspicion early, and is gossiped for the others.
   */
  private checkRefusal(id: number, suspicion: Suspicion): void {
    const { view, config, outbox, lifecycle, name } = this.ctx;
    if (suspicion.connectTried || suspicion.refusedBy.includes(name)) return;
    suspicion.connectTried = true;
    const incarnation = view.table.incarnationOf(id);
    outbox.tryConnect(id, () => {
      if (!lifecycle.isRunning || this.running.get(id) !== suspicion) return;
      if (view.table.incarnationOf(id) !== incarnation) return;
      if (!suspicion.witnessRefusal(name, config.probeTimeoutMs)) return;
      suspicion.confirm(name);
      outbox.enqueue(
        { kind: 'suspect', name: view.directory.nameOf(id), incarnation, from: name, refused: true },
        id,
      );
    });
  }
}
