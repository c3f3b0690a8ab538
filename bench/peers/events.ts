/**
 * What the three systems of `bench/peers/` say about each other, read from their output and turned into
 * one event shape, so that the same analysis (bench/peers/analysis.ts) serves all three. Pure: text in,
 * data out.
 *
 * What each system says, and what "suspect" means for it:
 * - **fdkit** (`fdkit agent`): one JSON line per transition, `{"t","node","event","member","incarnation",
 *   "cause"}`. A member reports `suspect` both when it raised the suspicion itself (cause `probe-failed`,
 *   or `connection-refused` from the death watch) and when a suspicion reached it by gossip
 *   (`suspect-gossip`); only the first two are counted as "raised".
 * - **Serf** (`serf agent -log-level info`): its log. `serf: EventMemberJoin|Failed|Leave: NAME ADDR`
 *   are the membership changes its member list goes through (Serf has no suspect state: a suspect member
 *   stays alive to Serf). Suspicions appear only in memberlist's log line `memberlist: Suspect NAME has
 *   failed, no acks received`, written by the member whose own probe failed: a raised suspicion.
 *   `memberlist: Refuting a suspect message` is the suspect refuting.
 * - **memberlist** (`bench/peers/memberlist-agent`): JSON lines like fdkit's, without incarnation.
 *   `alive`, `dead`, `left` come from memberlist's EventDelegate (NotifyJoin, NotifyLeave); `suspect` from
 *   the same log line as Serf's (raised by this member's own probe); `refute` from its refutation line.
 *
 * So a suspicion "raised" means the same for the three: this member's own probe (or, in fdkit, its
 * death-watch connection) failed. The first detection of a crash is always a raised suspicion or a death,
 * as gossip cannot come before its source.
 */

export const SYSTEMS = ['fdkit', 'serf', 'memberlist'] as const;
export type SystemName = (typeof SYSTEMS)[number];

export type PeerEventKind = 'alive' | 'suspect' | 'dead' | 'left' | 'refute';

/** One membership event of one member, as the bench received it. */
export interface PeerEvent {
  /** When the bench read the line (its monotonic clock, ms). */
  readonly atMs: number;
  /** The member that reported it. */
  readonly observer: string;
  readonly kind: PeerEventKind;
  /** The member it is about (the observer itself for `refute`). */
  readonly member: string;
  /** A suspicion this observer raised itself (its own probe or connection failed). */
  readonly raised: boolean;
  /** The system's own word for why, as printed. */
  readonly cause: string;
}

/** An event without the time the bench read it. */
export type ParsedEvent = Omit<PeerEvent, 'atMs'>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseJson(text: string): Record<string, unknown> | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(trimmed);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * An event line of a JSON-speaking agent (`fdkit agent`, the memberlist agent) named `observer`:
 * undefined for other agents' lines, event kinds outside `kinds` (`update`), and anything that is not an
 * event line. `raisedBy` tells which of its suspicions the agent raised itself.
 */
function parseJsonEvent(
  text: string,
  observer: string,
  kinds: ReadonlySet<string>,
  raisedBy: (cause: string) => boolean,
): ParsedEvent | undefined {
  const o = parseJson(text);
  if (o === undefined || o.node !== observer) return undefined;
  const { event, member, cause } = o;
  if (typeof event !== 'string' || !kinds.has(event)) return undefined;
  if (typeof member !== 'string' || member === '' || typeof cause !== 'string') return undefined;
  const kind = event as PeerEventKind;
  return { observer, kind, member, raised: kind === 'suspect' && raisedBy(cause), cause };
}

const FDKIT_KINDS: ReadonlySet<string> = new Set(['alive', 'suspect', 'dead', 'left']);
const FDKIT_RAISED_CAUSES: ReadonlySet<string> = new Set(['probe-failed', 'connection-refused']);

/**
 * One stdout line of `fdkit agent` named `observer`; undefined for `update` events and anything that is
 * not an event line of that agent.
 */
export function parseFdkitLine(text: string, observer: string): ParsedEvent | undefined {
  return parseJsonEvent(text, observer, FDKIT_KINDS, (cause) => FDKIT_RAISED_CAUSES.has(cause));
}

const MEMBERLIST_KINDS: ReadonlySet<string> = new Set(['alive', 'suspect', 'dead', 'left', 'refute']);

/**
 * One stdout line of `bench/peers/memberlist-agent` named `observer`; undefined for `update` events,
 * command answers and anything else.
 */
export function parseMemberlistLine(text: string, observer: string): ParsedEvent | undefined {
  // Its only suspect line is the one its own failed probe writes.
  return parseJsonEvent(text, observer, MEMBERLIST_KINDS, () => true);
}

const SERF_MEMBER = /\bserf: EventMember(Join|Failed|Leave): (\S+)/;
const SERF_SUSPECT = /\bmemberlist: Suspect (\S+) has failed, no acks received/;
const SERF_REFUTE = /\bmemberlist: Refuting a suspect message/;

/** One log line of `serf agent` named `observer`; undefined for lines that report no membership event. */
export function parseSerfLine(text: string, observer: string): ParsedEvent | undefined {
  const member = SERF_MEMBER.exec(text);
  if (member !== null) {
    const which = member[1]!;
    const kind: PeerEventKind = which === 'Join' ? 'alive' : which === 'Failed' ? 'dead' : 'left';
    return { observer, kind, member: member[2]!, raised: false, cause: `EventMember${which}` };
  }
  const suspect = SERF_SUSPECT.exec(text);
  if (suspect !== null) {
    return { observer, kind: 'suspect', member: suspect[1]!, raised: true, cause: 'probe-failed' };
  }
  if (SERF_REFUTE.test(text)) {
    return { observer, kind: 'refute', member: observer, raised: false, cause: 'suspect-refuted' };
  }
  return undefined;
}

/** The parser of `system`'s output. */
export function parserFor(system: SystemName): (text: string, observer: string) => ParsedEvent | undefined {
  switch (system) {
    case 'fdkit':
      return parseFdkitLine;
    case 'serf':
      return parseSerfLine;
    case 'memberlist':
      return parseMemberlistLine;
  }
}

/** Membership states a view holds (suspicions are events, not states, for Serf and memberlist). */
export type ViewState = 'alive' | 'dead' | 'left';

/**
 * What `observer` last reported about each other member, from `events` (in the order received):
 * `alive`, `dead` or `left`. Suspicions and refutations do not change it, so the view means the same in
 * the three systems (for fdkit a refuted suspicion ends with an `alive` event anyway).
 */
export function viewOf(events: readonly PeerEvent[], observer: string): Map<string, ViewState> {
  const view = new Map<string, ViewState>();
  for (const e of events) {
    if (e.observer !== observer || e.member === observer) continue;
    if (e.kind === 'alive' || e.kind === 'dead' || e.kind === 'left') view.set(e.member, e.kind);
  }
  return view;
}

/** True when every member of `running` holds every other one alive. */
export function convergedView(events: readonly PeerEvent[], running: readonly string[]): boolean {
  return running.every((a) => {
    const view = viewOf(events, a);
    return running.every((b) => a === b || view.get(b) === 'alive');
  });
}
