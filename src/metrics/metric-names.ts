/**
 * Every metric fdkit exports, by name (before the prefix), with its type, labels and help text: one
 * table, so that a SWIM node and a heartbeat monitor name the same thing the same way and a dashboard
 * works on both. docs/metrics.md gives each beside memberlist's equivalent.
 *
 * Labels are closed sets (states, causes, reasons, transports); only `member` is not, and only the
 * opt-in {@link FdkitMetricsOptions.perMemberLabels} adds it.
 */

/** A Prometheus metric type, as fdkit uses them. */
export type MetricType = 'counter' | 'gauge' | 'histogram';

/** One metric: its name without the prefix, type, label names and help text. */
export interface MetricDefinition {
  readonly name: string;
  readonly type: MetricType;
  readonly labels: readonly string[];
  readonly help: string;
}

function define(name: string, type: MetricType, labels: readonly string[], help: string): MetricDefinition {
  return { name, type, labels, help };
}

/** The metrics of both sources; each source registers the ones that apply to it. */
export const METRICS = {
  members: define('members', 'gauge', ['state'], 'Members in this member view, itself included, by state.'),
  localHealth: define(
    'local_health_score',
    'gauge',
    [],
    'Lifeguard local health score: 0 is healthy, higher means this member itself is struggling.',
  ),
  suspicions: define(
    'suspicions_raised_total',
    'counter',
    [],
    'Suspicions this member raised itself (not those heard in gossip).',
  ),
  refutations: define(
    'refutations_total',
    'counter',
    [],
    'Suspicions or deaths of this member that it refuted with a higher incarnation.',
  ),
  refutationsSeen: define(
    'refutations_seen_total',
    'counter',
    [],
    'Suspicions of other members that this member saw refuted: suspects it held that came back alive.',
  ),
  nameConflicts: define(
    'name_conflicts_total',
    'counter',
    [],
    'Name conflicts this member reported: two addresses claiming one name, at most once a push-pull interval each.',
  ),
  incarnationJumps: define(
    'incarnation_jumps_total',
    'counter',
    [],
    'Statements claiming an incarnation far above the one held: accusations dropped, alive statements capped. Forged statements, or a restart while held alive.',
  ),
  busySpells: define(
    'busy_spells_total',
    'counter',
    [],
    'Spells in which this member said it was busy: its timers kept firing late, its CPU behind; the others spared it.',
  ),
  busyExcused: define(
    'busy_excused_total',
    'counter',
    [],
    'Failed probes of members that had said they were busy: excused, no helpers asked, no suspicion raised.',
  ),
  deaths: define('deaths_total', 'counter', ['cause'], 'Members this member came to hold dead, by cause.'),
  transitions: define(
    'transitions_total',
    'counter',
    ['state', 'cause'],
    'Member transitions this member reported, by the state entered and the cause.',
  ),
  detection: define(
    'detection_seconds',
    'histogram',
    [],
    'Seconds from the first suspicion of a member to its death, for the same incarnation, as this member saw them.',
  ),
  probes: define('probes_total', 'counter', [], 'Direct probes sent: one per protocol period with a target.'),
  probesFailed: define(
    'probes_failed_total',
    'counter',
    [],
    'Probes that ended with no ack by any path (direct, indirect, TCP fallback).',
  ),
  indirectProbes: define(
    'indirect_probes_total',
    'counter',
    [],
    'Ping-req requests sent to helpers after a late direct ack.',
  ),
  probeRtt: define(
    'probe_rtt_seconds',
    'histogram',
    [],
    'Round trip of each direct probe whose own ack came back: ping to ack, as this member measured it.',
  ),
  nacksSent: define(
    'nacks_sent_total',
    'counter',
    [],
    'Nacks sent as a ping-req helper whose target stayed silent.',
  ),
  nacksReceived: define('nacks_received_total', 'counter', [], 'Nacks received from ping-req helpers.'),
  messagesSent: define(
    'messages_sent_total',
    'counter',
    ['transport'],
    'Messages handed to the network: UDP datagrams, TCP stream messages.',
  ),
  messagesReceived: define(
    'messages_received_total',
    'counter',
    ['transport'],
    'Messages received: UDP datagrams, TCP stream messages.',
  ),
  bytesSent: define('bytes_sent_total', 'counter', ['transport'], 'Bytes sent, sealing included for UDP.'),
  bytesReceived: define(
    'bytes_received_total',
    'counter',
    ['transport'],
    'Bytes received, sealing included for UDP.',
  ),
  sendErrors: define(
    'send_errors_total',
    'counter',
    ['transport'],
    'Sends that failed: datagrams the system refused, stream sends refused, reset or timed out.',
  ),
  broadcastQueue: define(
    'broadcast_queue_depth',
    'gauge',
    [],
    'Updates waiting to be gossiped: a queue that keeps growing means gossip cannot keep up.',
  ),
  pushPulls: define(
    'push_pulls_total',
    'counter',
    [],
    'Push-pull (state sync) messages sent, requests and replies.',
  ),
  pushPullDuration: define(
    'push_pull_duration_seconds',
    'histogram',
    [],
    'Push-pulls this member started, from the request to the reply merged.',
  ),
  dropped: define(
    'dropped_total',
    'counter',
    ['reason'],
    'Inbound messages dropped, by reason (the codec, the transport, the heartbeat core).',
  ),
  decryptFailures: define(
    'decrypt_failures_total',
    'counter',
    [],
    'Inbound messages that did not open under any installed key and label (the decrypt-failed drops).',
  ),
  lateTimers: define(
    'late_timers_total',
    'counter',
    [],
    'Protocol timers that fired late: stalls of this process (event loop, GC, a frozen VM).',
  ),
  heartbeatsSent: define(
    'heartbeats_sent_total',
    'counter',
    [],
    'Heartbeats sent: one per peer per interval.',
  ),
  heartbeatsReceived: define(
    'heartbeats_received_total',
    'counter',
    [],
    'Heartbeats accepted from peers (not dropped, not stale).',
  ),
  restarts: define(
    'peer_restarts_total',
    'counter',
    [],
    'New lives of peers seen: heartbeats with another nonce and an incarnation no lower.',
  ),
  freezes: define(
    'freezes_total',
    'counter',
    [],
    'Freezes of this process (timers more than an interval late) that tripped the freeze guard.',
  ),
  memberPhi: define(
    'member_phi',
    'gauge',
    ['member'],
    'Phi of the silence of a member held alive or suspect (opt-in: perMemberLabels).',
  ),
  leaderChanges: define(
    'leader_changes_total',
    'counter',
    ['cause'],
    'Changes of the leader the attached leader hint names, by cause.',
  ),
  leaderEpoch: define(
    'leader_epoch',
    'gauge',
    [],
    'How many times the leader hint has changed its leader: local, not agreed.',
  ),
  leaderIsSelf: define('leader_is_self', 'gauge', [], '1 when the leader hint names this member, else 0.'),
} as const satisfies Record<string, MetricDefinition>;
