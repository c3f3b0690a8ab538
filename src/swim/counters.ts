/** The protocol counters of a SWIM member, which every mechanism adds to. */

/** Protocol counters, cumulative since creation. */
export interface SwimCounters {
  probes: number;
  probesFailed: number;
  indirectProbes: number;
  nacksSent: number;
  nacksReceived: number;
  suspicionsRaised: number;
  refutations: number;
  deathsDeclared: number;
  packetsSent: number;
  packetsReceived: number;
  streamsSent: number;
  misdirectedPings: number;
  /** Protocol timers that fired more than half a probe timeout late (this member's own stalls). */
  lateTimers: number;
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
  /** Watches opened on the members this one watches, and those that closed (see `death-watch.ts`). */
  watchesOpened: number;
  watchesClosed: number;
  /** Suspects pinged once before being declared dead on others' word (see `lastWord`). */
  lastWords: number;
  /** Of those, the ones that answered: deaths that would have been false. */
  lastWordsAnswered: number;
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
    deathsDeclared: 0,
    packetsSent: 0,
    packetsReceived: 0,
    streamsSent: 0,
    misdirectedPings: 0,
    lateTimers: 0,
    connectProbes: 0,
    connectsRefused: 0,
    fallbackPings: 0,
    fallbackAcks: 0,
    fallbackPingsAnswered: 0,
    watchesOpened: 0,
    watchesClosed: 0,
    lastWords: 0,
    lastWordsAnswered: 0,
  };
}
