/**
 * SWIM's membership rules (Das, Gupta and Motivala, 2002, section 4.2, with memberlist's treatment of
 * dead and left members): which statements about a member override what this member holds, for alive
 * and dead statements and for the member lists of a state exchange. Suspicions have their own file
 * (`suspicions.ts`), this member's statements about itself too (`self.ts`).
 */
import type { TransitionCause } from '../membership/events.js';
import { ALIVE, DEAD, LEFT, overrides, SUSPECT, stateName, UNKNOWN } from '../membership/member-state.js';
import type { SwimContext } from './context.js';
import type { AliveUpdate, DeadUpdate, MemberList, SuspectUpdate, Update } from './messages.js';
import type { Refusal } from './refusal.js';
import type { Reporter } from './reporter.js';
import type { SelfState } from './self.js';
import type { Suspicion } from './suspicion.js';

const EMPTY = new Uint8Array(0);

/** What the membership rules ask of the other mechanisms. */
export interface RulesPort {
  /** Ends the suspicion of `id`, if any, and returns it uncancelled (the suspicions). */
  takeSuspicion(id: number): Suspicion | undefined;
  /** Applies a suspicion (the suspicions). */
  suspect(s: SuspectUpdate): void;
  /** The incarnation a life of `name`, unknown to the view, must exceed to be believed (the tombstones). */
  ceilingOf(name: string): number;
  /** Forgets the tombstones past their time (the tombstones). */
  pruneTombstones(): void;
  /** A member's address changed, which no event tells of (the death watch). */
  addressChanged(): void;
}

/**
 * A death told directly to the member it is about, because a peer still holds it alive at or below that
 * incarnation (typically the other side of a healed partition): a live member refutes at once, rather
 * than when a reconnection attempt or a probe happens to reach it.
 */
interface Notice {
  readonly address: string;
  readonly name: string;
  readonly incarnation: number;
}

export class MembershipRules {
  constructor(
    private readonly ctx: SwimContext,
    private readonly self: SelfState,
    private readonly reporter: Reporter,
    private readonly port: RulesPort,
  ) {}

  /**
   * Applies an alive statement; `quiet`: learnt while joining, not gossiped on; `vetted`: the alive
   * filter already accepted it.
   */
  alive(a: AliveUpdate, quiet = false, vetted = false): void {
    const { view, clock, random, outbox } = this.ctx;
    const { directory, table, order } = view;
    if (a.name === this.ctx.name) {
      // Our own statement coming back is news only if someone claims a newer or different life of ours.
      if (
        a.incarnation > this.self.incarnation ||
        (a.incarnation === this.self.incarnation && a.address !== this.ctx.address)
      ) {
        this.self.refute(a.incarnation);
      }
      return;
    }
    const known = directory.find(a.name);
    if ((known === undefined || !table.isKnown(known)) && a.incarnation <= this.port.ceilingOf(a.name)) {
      return;
    }
    // Vetted before it is interned: a refused name must not take a slot of the directory.
    if (!vetted && this.isNews(a) && this.refuses(a) !== undefined) return;
    const id = known ?? directory.intern(a.name, a.address);
    const current = table.stateOf(id);
    const now = clock.now();
    if (current === UNKNOWN) {
      table.set(id, ALIVE, a.incarnation, now);
      table.setMetadata(id, a.meta);
      order.add(id, random);
      if (!quiet) outbox.enqueue(a, id);
      this.reporter.member('alive', id, 'unknown', 'joined');
      return;
    }
    // Never an alive at the incarnation of a death: see `tombstones.ts`.
    if (!overrides(ALIVE, a.incarnation, current, table.incarnationOf(id))) return;
    this.port.takeSuspicion(id)?.cancel();
    const metaChanged = !sameBytes(table.metadataOf(id) ?? EMPTY, a.meta);
    table.set(id, ALIVE, a.incarnation, now);
    table.setMetadata(id, a.meta);
    if (directory.addressOf(id) !== a.address) {
      directory.setAddress(id, a.address);
      // No event tells of a new address when the metadata stayed the same, and a watch on the old one
      // would watch nothing from now on.
      this.port.addressChanged();
    }
    order.add(id, random);
    outbox.enqueue(a, id);
    if (current === ALIVE) {
      if (metaChanged) this.reporter.member('update', id, 'alive', 'metadata');
    } else {
      this.reporter.member('alive', id, stateName(current), current === SUSPECT ? 'refuted' : 'rejoined');
    }
  }

  /**
   * Applies a dead statement (a left one when its author is the member itself). `ownSuspicion`: this
   * member's own suspicion ran out, and the statement is its own.
   */
  dead(d: DeadUpdate, ownSuspicion?: Suspicion): void {
    const { view, clock, outbox } = this.ctx;
    const { directory, table } = view;
    const id = directory.find(d.name);
    if (id === undefined) return;
    if (id === view.selfId) {
      this.self.accused(d.incarnation);
      return;
    }
    const current = table.stateOf(id);
    if (current === UNKNOWN || d.incarnation < table.incarnationOf(id)) return;
    const left = d.from === d.name;
    if (!overrides(left ? LEFT : DEAD, d.incarnation, current, table.incarnationOf(id))) return;
    const held = this.port.takeSuspicion(id);
    const suspicion = ownSuspicion ?? held;
    suspicion?.cancel();
    table.set(id, left ? LEFT : DEAD, d.incarnation, clock.now());
    outbox.enqueue(d, id);
    const cause: TransitionCause = left
      ? 'left'
      : ownSuspicion !== undefined
        ? 'suspicion-timeout'
        : 'dead-gossip';
    this.reporter.member(left ? 'left' : 'dead', id, stateName(current), cause, suspicion, d.from);
    this.port.pruneTombstones();
  }

  /**
   * Merges a member list received in a state exchange; `from` is the member that sent it, `join` whether
   * it is joining. Returns the refusal when the delegates refuse the exchange, and then merges nothing
   * (the exchange is answered with it): the merge filter refused the list, or (in a join) the alive
   * filter refused the sender itself, the joiner at a seed or the seed at a joiner.
   */
  merge(members: MemberList, from: string, join = false): Refusal | undefined {
    const { view, outbox, name: self } = this.ctx;
    const { directory, table } = view;
    const { names, addresses, incarnations, states, metas } = members;
    const notices: Notice[] = [];
    // A member that knew nobody is joining: what it learns here is old news to the cluster, and
    // gossiping every member back to it would cost retransmitLimit × n updates for nothing.
    const joining = table.known <= 1;
    const count = Math.min(names.length, addresses.length, incarnations.length, states.length, metas.length);
    const merging = this.ctx.delegates.filterMerge(members, count, join);
    if (merging !== undefined) {
      this.ctx.counters.mergesRefused++;
      return { code: 'FDKIT_JOIN_REJECTED', reason: merging };
    }
    const joiner = join ? this.joinerOf(members, from, count) : undefined;
    if (joiner !== undefined && this.isNews(joiner)) {
      const reason = this.refuses(joiner);
      if (reason !== undefined) return { code: 'FDKIT_JOIN_REJECTED', reason };
    }
    for (let i = 0; i < count; i++) {
      const name = names[i]!;
      const incarnation = incarnations[i]!;
      const state = states[i]!;
      const id = directory.find(name);
      if (state === ALIVE && id !== view.selfId) {
        const current = id === undefined ? UNKNOWN : table.stateOf(id);
        const known = id === undefined ? -1 : table.incarnationOf(id);
        // Most of a state exchange repeats what this member holds: skip those entries cheaply.
        if ((current === ALIVE || current === SUSPECT) && known >= incarnation) continue;
        // The peer holds alive a life this member holds dead, or forgot dead: if that life goes on (the
        // peer is across a healed partition from it, or it restarted), telling it lets it refute now.
        if (current === DEAD && incarnation <= known) {
          notices.push({ address: directory.addressOf(id!), name, incarnation: known });
          continue;
        }
        if (current === UNKNOWN) {
          const ceiling = this.port.ceilingOf(name);
          if (incarnation <= ceiling) {
            notices.push({ address: addresses[i]!, name, incarnation: ceiling });
            continue;
          }
        }
      }
      switch (state) {
        case ALIVE:
          this.alive(
            { kind: 'alive', name, address: addresses[i]!, incarnation, meta: metas[i]! },
            joining,
            joiner !== undefined && name === from,
          );
          break;
        case LEFT:
          this.dead({ kind: 'dead', name, incarnation, from: name });
          break;
        case SUSPECT:
        case DEAD:
          // memberlist's rule: a death we did not witness becomes a suspicion here, which the member
          // can still refute, instead of a death propagated on hearsay.
          if (id !== undefined) this.port.suspect({ kind: 'suspect', name, incarnation, from });
          break;
      }
    }
    for (const { address, name, incarnation } of notices) {
      const notice: Update = { kind: 'dead', name, incarnation, from: self };
      outbox.sendPacket(address, { type: 'gossip', from: self, updates: [notice] });
    }
    return undefined;
  }

  /** The joiner's alive statement about itself in its own list, if the list has one. */
  private joinerOf(members: MemberList, from: string, count: number): AliveUpdate | undefined {
    const i = members.names.indexOf(from);
    if (i < 0 || i >= count || members.states[i] !== ALIVE) return undefined;
    const { addresses, incarnations, metas } = members;
    return {
      kind: 'alive',
      name: from,
      address: addresses[i]!,
      incarnation: incarnations[i]!,
      meta: metas[i]!,
    };
  }

  /**
   * Whether `a` is news the alive filter vets: a member this one does not know (or forgot), or a live
   * one's new life at another address or with other metadata. Never this member itself, and never a
   * statement that would not be believed anyway.
   */
  private isNews(a: AliveUpdate): boolean {
    if (!this.ctx.delegates.filtersAlive || a.name === this.ctx.name) return false;
    const { directory, table } = this.ctx.view;
    const id = directory.find(a.name);
    const current = id === undefined ? UNKNOWN : table.stateOf(id);
    if (id === undefined || current === UNKNOWN) return a.incarnation > this.port.ceilingOf(a.name);
    if (!overrides(ALIVE, a.incarnation, current, table.incarnationOf(id))) return false;
    return directory.addressOf(id) !== a.address || !sameBytes(table.metadataOf(id) ?? EMPTY, a.meta);
  }

  /** The alive filter's reason to refuse `a`, counted, or undefined when it accepts it. */
  private refuses(a: AliveUpdate): string | undefined {
    const reason = this.ctx.delegates.filterAlive(a);
    if (reason !== undefined) this.ctx.counters.aliveRefused++;
    return reason;
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
