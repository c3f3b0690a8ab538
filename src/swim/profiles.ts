/**
 * Preset configurations. They start from HashiCorp memberlist's `DefaultLANConfig`, `DefaultWANConfig`
 * and `DefaultLocalConfig`, the most deployed SWIM implementation, so that users can compare like with
 * like. Each value carries its reason.
 */
import type { SwimConfig } from './config.js';

/** For members in one data centre: round trips well under a millisecond, rare loss. */
export const lan: SwimConfig = Object.freeze({
  // One probe a second keeps the probe load at one ping per member per second, whatever n is.
  probeIntervalMs: 1000,
  // Half the interval leaves the other half for indirect probes before the period ends.
  probeTimeoutMs: 500,
  // Three helpers make a false suspicion need three more lost paths (SWIM's k).
  indirectChecks: 3,
  // min suspicion = 4 × log10(n) periods: time for a paused member to see the suspicion and refute it.
  suspicionMult: 4,
  // Lifeguard starts suspicion at 6 × min and shrinks it as independent confirmations arrive.
  suspicionMaxTimeoutMult: 6,
  // 4 × ceil(log10(n + 1)) retransmissions reach every member with high probability.
  retransmitMult: 4,
  // Five gossip rounds a second spread an update across 1000 members in about a second.
  gossipIntervalMs: 200,
  // Fan-out of 3: infection-style spread in log4(n) rounds.
  gossipNodes: 3,
  // Full sync every 30 s repairs whatever gossip missed, at O(n) bytes, so it is kept rare.
  pushPullIntervalMs: 30_000,
  // A locally unhealthy member slows its probing by up to 8 × rather than accuse others.
  awarenessMaxMultiplier: 8,
  // Dead members hear gossip for 30 s, long enough to learn of their death and refute it.
  gossipToTheDeadMs: 30_000,
  // Below the 1500-byte Ethernet MTU minus IP and UDP headers, with margin for tunnels.
  packetBytesMax: 1400,
  // Not in memberlist (Serf bolts it on at 30 s): each member pings one member it holds dead every 10 s,
  // so the two sides of a healed partition find each other within seconds.
  reconnectIntervalMs: 10_000,
  // Serf's reconnect timeout: a member dead for a day is not coming back at the same address. Serf keeps
  // the tombstones of members that left as long (tombstone_timeout), and so does fdkit for every death.
  reconnectTimeoutMs: 86_400_000,
});

/** For members across data centres: round trips of tens to hundreds of milliseconds, more loss. */
export const wan: SwimConfig = Object.freeze({
  ...lan,
  // Slower probing: a WAN round trip can take a large part of a second.
  probeIntervalMs: 5000,
  // Three seconds cover a slow round trip plus retransmission inside the network.
  probeTimeoutMs: 3000,
  // Longer suspicion: refutation has to cross the WAN too.
  suspicionMult: 6,
  // Fewer, larger gossip rounds: latency dominates, so batching costs little.
  gossipIntervalMs: 500,
  gossipNodes: 4,
  // State sync is expensive across data centres.
  pushPullIntervalMs: 60_000,
  gossipToTheDeadMs: 60_000,
  reconnectIntervalMs: 30_000,
});

/** For members on one host (tests, development): loopback round trips, no loss. */
export const local: SwimConfig = Object.freeze({
  ...lan,
  // Loopback answers in well under a millisecond; 200 ms is generous.
  probeTimeoutMs: 200,
  // One helper is enough where paths do not fail independently anyway.
  indirectChecks: 1,
  suspicionMult: 3,
  retransmitMult: 2,
  gossipIntervalMs: 100,
  pushPullIntervalMs: 15_000,
  gossipToTheDeadMs: 15_000,
  reconnectIntervalMs: 5000,
});

/** The presets by name, for command lines and configuration files. */
export const profiles: Readonly<Record<'lan' | 'wan' | 'local', SwimConfig>> = Object.freeze({
  lan,
  wan,
  local,
});

/** A preset's name. */
export type ProfileName = keyof typeof profiles;
