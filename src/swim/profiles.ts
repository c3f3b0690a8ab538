/**
 * Preset configurations. `memberlist-lan`, `memberlist-wan` and `memberlist-local` are HashiCorp
 * memberlist's `DefaultLANConfig`, `DefaultWANConfig` and `DefaultLocalConfig`, the most deployed SWIM
 * implementation, value for value, with fdkit's own fields at fdkit's values and its host silence off:
 * for comparisons, and for clusters that must behave as memberlist does. `lan`, `wan` and `local`, the
 * defaults, are the values the simulator search of `bench/defaults-search/` chose
 * (docs/defaults-search.md). Each value carries its reason.
 */
import type { SwimConfig } from './config.js';

/** memberlist's `DefaultLANConfig`: members in one data centre, round trips well under a millisecond. */
export const memberlistLan: SwimConfig = Object.freeze({
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
  // memberlist waits out Lifeguard's timeout whatever the evidence.
  hostSilenceMs: 0,
});

/** memberlist's `DefaultWANConfig`: members across data centres, round trips of tens to hundreds of ms. */
export const memberlistWan: SwimConfig = Object.freeze({
  ...memberlistLan,
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

/** memberlist's `DefaultLocalConfig`: members on one host (tests, development), loopback round trips. */
export const memberlistLocal: SwimConfig = Object.freeze({
  ...memberlistLan,
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

/**
 * The default for members in one data centre: memberlist's LAN values, with a crashed host convicted on
 * its silence, and the changes the search of `bench/defaults-search` chose with it (docs/defaults-search.md).
 */
export const lan: SwimConfig = Object.freeze({
  ...memberlistLan,
  // A LAN round trip is well under a millisecond: the ping-req round starts sooner, so a probe that
  // failed has its helpers' nacks (the silence's second vantage point) well before the period ends.
  probeTimeoutMs: 300,
  // Lifeguard's timeout now waits only on members whose host still answers (paused, overloaded, behind
  // loss), which gain a period from 5: no paused member was convicted in the search's 6 s pauses.
  suspicionMult: 5,
  // Five helpers: a probe lost on its way is rarely lost on five other paths too. With them, the search's
  // false suspicions fell to 0.56 × memberlist's, and at n = 20 and 100 none of its scenarios had more.
  indirectChecks: 5,
  // A death convicted on silence spreads on its own (the others hold only a suspicion): a wider fan-out
  // reaches every member a round sooner.
  gossipNodes: 5,
  // × max(1, log10 n): 1 s at 10 members or fewer, 1.3 s at 20, 2 s at 100. A live host accepts one of
  // the 15 connections tried over it but at odds of about 4 · 10^−5 at 30 % loss, and a live suspect
  // refutes well within it.
  hostSilenceMs: 1000,
});

/**
 * The default for members across data centres: memberlist's WAN values, with more helpers, quicker and
 * wider gossip, and the host silence over a window of 5 s × max(1, log10 n). With the adaptive probe
 * timeout (a node option, not a profile field) a crashed host is known sooner still:
 * `{ ...wan, suspicionMult: 5 }` with `adaptiveProbeTimeout` knew it in a third of memberlist's time in the
 * search, with more false suspicions than memberlist's in one-way cuts at n = 100 (docs/defaults-search.md).
 */
export const wan: SwimConfig = Object.freeze({
  ...memberlistWan,
  // Lifeguard's timeout waits only on hosts that still answer; the silence convicts the rest.
  suspicionMult: 4,
  // Five helpers: a false suspicion across lossy WAN paths needs five more paths lost.
  indirectChecks: 5,
  gossipIntervalMs: 300,
  gossipNodes: 5,
  hostSilenceMs: 5000,
});

/** The default for members on one host (tests, development): memberlist's local values, with the host silence. */
export const local: SwimConfig = Object.freeze({
  ...memberlistLocal,
  // Loopback: a helper's nack is the silence's second vantage point, so three helpers rather than one.
  probeTimeoutMs: 300,
  indirectChecks: 3,
  suspicionMult: 4,
  gossipNodes: 4,
  // × max(1, log10 n): half a second at 10 members or fewer.
  hostSilenceMs: 500,
});

/** The presets by name, for command lines and configuration files. */
export const profiles: Readonly<
  Record<'lan' | 'wan' | 'local' | 'memberlist-lan' | 'memberlist-wan' | 'memberlist-local', SwimConfig>
> = Object.freeze({
  lan,
  wan,
  local,
  'memberlist-lan': memberlistLan,
  'memberlist-wan': memberlistWan,
  'memberlist-local': memberlistLocal,
});

/** A preset's name. */
export type ProfileName = keyof typeof profiles;

/** The presets' names, in the order the messages list them. */
export const PROFILE_NAMES = Object.freeze(Object.keys(profiles)) as readonly ProfileName[];

/** The presets' names as a message lists them: `lan, wan, …, or memberlist-local`. */
export const PROFILE_LIST = `${PROFILE_NAMES.slice(0, -1).join(', ')} or ${PROFILE_NAMES.at(-1)}`;

/** Whether `name` is a preset's name (its own key: `toString` is none). */
export function isProfileName(name: unknown): name is ProfileName {
  return typeof name === 'string' && Object.hasOwn(profiles, name);
}
