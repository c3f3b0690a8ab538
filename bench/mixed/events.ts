/**
 * The two agents' stdout events as one shape (bench/mixed/analysis.ts's {@link MixedEvent}). Pure.
 *
 * - The Go agent (test/wire/memberlist/go-agent) reports memberlist's EventDelegate: `join` is a member
 *   alive, `leave` one dead or left (its `state` tells which), `suspect` a failed probe of its own;
 *   `update` (metadata) is no state change.
 * - `fdkit agent` prints `alive`, `suspect`, `dead`, `left` and `update` lines.
 */
import type { GoEvent } from '../../test/wire/memberlist/go-agent-lines.js';
import type { MixedEvent, MixedEventKind } from './analysis.js';

/** A Go agent's event, read at `atMs`; undefined for events that are no membership state. */
export function fromGo(observer: string, atMs: number, e: GoEvent): MixedEvent | undefined {
  switch (e.event) {
    case 'join':
      return { atMs, observer, kind: 'alive', member: e.member };
    case 'leave':
      // memberlist calls NotifyLeave for both; only a graceful leave carries the left state.
      return { atMs, observer, kind: e.state === 'left' ? 'left' : 'dead', member: e.member };
    case 'suspect':
      return { atMs, observer, kind: 'suspect', member: e.member };
    default:
      return undefined;
  }
}

const FDKIT_KINDS: ReadonlySet<string> = new Set<MixedEventKind>(['alive', 'suspect', 'dead', 'left']);

/** An `fdkit agent` line's fields that matter here. */
export interface FdkitLine {
  readonly event: string;
  readonly member: string;
  readonly cause: string;
}

/** An `fdkit agent` event line, read at `atMs`; undefined for `update`. */
export function fromFdkit(observer: string, atMs: number, line: FdkitLine): MixedEvent | undefined {
  if (!FDKIT_KINDS.has(line.event)) return undefined;
  return { atMs, observer, kind: line.event as MixedEventKind, member: line.member, cause: line.cause };
}
