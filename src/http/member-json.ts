/**
 * Members as `/v1/members` writes them ({@link MemberJson}), and the one thing the source does not
 * hold: since when each member is in its state, learnt from the transitions seen while serving.
 */
import type { MemberEvent } from '../membership/events.js';
import type { MemberJson } from './api-types.js';
import type { HttpMember } from './http-source.js';

// Metadata is bytes; operators mostly put text there (`priority=10`, `zone=b`), so text is shown as text.
const UTF8 = new TextDecoder('utf-8', { fatal: true });

function metaOf(meta: Uint8Array): Pick<MemberJson, 'meta' | 'metaEncoding'> {
  try {
    return { meta: UTF8.decode(meta), metaEncoding: 'utf8' };
  } catch {
    return { meta: Buffer.from(meta).toString('base64'), metaEncoding: 'base64' };
  }
}

/** What the latest transition of one member said, for the fields the view itself does not keep. */
interface Seen {
  readonly wallMs: number;
  readonly accuser: string | null;
  readonly confirmations: number;
}

/**
 * The time and the accuser of each member's last transition. Bounded: it forgets the members the view
 * no longer lists each time the members are written, so it never holds more than the view did.
 */
export class TransitionLog {
  private readonly seen = new Map<string, Seen>();

  /** Records a transition (an `update` keeps the state, and so the time it began). */
  record(event: MemberEvent): void {
    if (event.type === 'update' && this.seen.has(event.member)) return;
    this.seen.set(event.member, {
      wallMs: Math.round(event.wallMs),
      accuser: event.accuser ?? null,
      confirmations: event.confirmations,
    });
  }

  /** The members as JSON, the local one marked; forgets the members no longer listed. */
  write(members: readonly HttpMember[], localName: string): MemberJson[] {
    const out = members.map((m) => this.toJson(m, m.name === localName));
    if (this.seen.size > members.length) {
      const listed = new Set(members.map((m) => m.name));
      for (const name of this.seen.keys()) if (!listed.has(name)) this.seen.delete(name);
    }
    return out;
  }

  private toJson(m: HttpMember, local: boolean): MemberJson {
    const seen = this.seen.get(m.name);
    const accused = m.state === 'suspect' || m.state === 'dead';
    // The view's own suspicion is current (confirmations grow without a new event); the event is a fallback.
    const accuser = accused ? (m.suspicion?.accuser ?? seen?.accuser ?? null) : null;
    const confirmations = accused ? (m.suspicion?.confirmations ?? seen?.confirmations ?? 0) : 0;
    return {
      name: m.name,
      address: m.address,
      state: m.state,
      incarnation: m.incarnation,
      ...metaOf(m.meta),
      since: seen?.wallMs ?? null,
      accuser,
      confirmations,
      phi: Number.isFinite(m.phi) ? m.phi : Number.MAX_VALUE,
      rttMs: m.rttMs ?? null,
      local,
    };
  }
}
