/** The protocol counters of a SWIM member, which every mechanism adds to. */

/** Protocol counters, cumulative since creation. */
export interface SwimCounters {
  /** Probes started: one a protocol period that found a target (the direct ping of the probe cycle). */
  probes: number;
  /**
   * Probes that failed: no ack by the end of the period, or a refused connection while the ack was late.
   * Probes sent before a freeze of this member are not counted (their silence says nothing).
   */
  probesFailed: number;
  /** Ping-reqs sent: one per helper asked, up to `indirectChecks` for each probe whose ack was late. */
  indirectProbes: number;
  /** Nacks this member sent as a ping-req helper whose target stayed silent. */
  nacksSent: number;
  /** Nacks received (Lifeguard: the missing ones raise the local health score). */
  nacksReceived: number;
  /** Suspicions this member raised itself (a failed probe or a refused connection) that took effect. */
  suspicionsRaised: number;
  /** Times this member raised its incarnation to refute a suspicion or death of itself. */
  refutations: number;
  /**
   * Suspicions of other members that this member saw refuted: a suspect it held came back alive at a
   * higher incarnation from the same address (the `alive` events with cause `refuted`).
   */
  refutationsSeen: number;
  /**
   * Deaths this member declared: suspicions it held (its own or heard) whose timeout ran out without a
   * refutation.
   */
  deathsDeclared: number;
  /**
   * Datagram messages handed to the environment (`sendPacket`); a transport may still coalesce several
   * into one compound datagram.
   */
  packetsSent: number;
  /** Datagram messages handled while running; each part of a compound datagram counts. */
  packetsReceived: number;
  /** State exchanges sent (push-pull requests and replies); fallback pings over streams are not counted. */
  streamsSent: number;
  /** Pings dropped because they were meant for another member (a previous owner of this address). */
  misdirectedPings: number;
  /** Protocol timers that fired more than half a probe timeout late (this member's own stalls). */
  lateTimers: number;
  /**
   * Spells in which this member said it was busy: its timers fired late for half a second or more (see
   * `busy-self.ts`).
   */
  busySpells: number;
  /** Failed probes of members that had said they were busy: excused, no helpers asked, no suspicion. */
  busyExcused: number;
  /** Connections tried to a member's port (late acks, and checks of others' refusals). */
  connectProbes: number;
  /** Of those, the ones the member's host refused. */
  connectsRefused: number;
  /** Fallback pings sent over a stream when a probe's datagrams went unanswered. */
  fallbackPings: number;
  /** Of those, the ones whose ack came back in time: probes that did not fail thanks to the fallback. */
  fallbackAcks: number;
  /** Fallback pings from other members that this member answered. */
  fallbackPingsAnswered: number;
  /** Watches opened on the members this one watches (see `death-watch.ts`), reopenings included. */
  watchesOpened: number;
  /**
   * Of those, the ones whose connection closed (the watcher then tries a fresh one, whose refusal is
   * evidence); watches that could not be opened, or that this member cancelled, are not counted.
   */
  watchesClosed: number;
  /** Suspects pinged once before being declared dead on others' word (see `lastWord`). */
  lastWords: number;
  /** Of those, the ones that answered: deaths that would have been false. */
  lastWordsAnswered: number;
  /** Alive statements the alive filter refused (see `SwimDelegates.filterAlive`): members kept out. */
  aliveRefused: number;
  /** State exchanges the merge filter refused (see `SwimDelegates.filterMerge`): nothing of them merged. */
  mergesRefused: number;
  /**
   * Delegate calls that threw or answered something unusable (a filter then refuses, a state is taken as
   * empty): an application bug the protocol stepped around.
   */
  delegateErrors: number;
  /**
   * Name conflicts this member reported: one per `conflict` event (a pair of addresses claiming one name,
   * reported again at most once a push-pull interval).
   */
  nameConflicts: number;
  /**
   * Statements about a member, this one included, that claimed an incarnation more than
   * `INCARNATION_JUMP_MAX` above the one held (see `incarnation-jump.ts`): accusations and statements
   * about this member dropped, alive statements and leaves believed at the cap.
   */
  incarnationJumps: number;
}

/** Counters at zero, for a new member. */
export function zeroSwimCounters(): SwimCounters {
  return {
    probes: 0,
    probesFailed: 0,
    indirectProbes: 0,
    nacksSent: 0,
    nacksReceived: 0,
    suspicionsRaised: 0,
    refutations: 0,
    refutationsSeen: 0,
    deathsDeclared: 0,
    packetsSent: 0,
    packetsReceived: 0,
    streamsSent: 0,
    misdirectedPings: 0,
    lateTimers: 0,
    busySpells: 0,
    busyExcused: 0,
    connectProbes: 0,
    connectsRefused: 0,
    fallbackPings: 0,
    fallbackAcks: 0,
    fallbackPingsAnswered: 0,
    watchesOpened: 0,
    watchesClosed: 0,
    lastWords: 0,
    lastWordsAnswered: 0,
    aliveRefused: 0,
    mergesRefused: 0,
    delegateErrors: 0,
    nameConflicts: 0,
    incarnationJumps: 0,
  };
}
