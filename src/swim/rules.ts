/**
 * SWIM's membership rules (Das, Gupta and Motivala, 2002, section 4.2, with memberlist's treatment of
 * dead and left members): which statements about a member override what this member holds, for alive
 * and dead statements and for the member lists of a state exchange. Suspicions have their own file
 * (`suspicions.ts`), this member's statements about itself too (`self.ts`).
 */
import type { TransitionCause } from '../membership/events.js';
import { ALIVE, DEAD, LEFT, overrides, SUSPECT, stateName, UNKNOWN } from '../membership/member-state.js';
import type { NameConflicts } from './conflicts.js';
import type { SwimContext } from './context.js';
import { INCARNATION_JUMP_MAX, jumpsAhead } from './incarnation-jump.js';
import type { AliveUpdate, DeadUpdate, MemberList, SuspectUpdate, Update } from './messages.js';
import type { Refusal } from './refusal.js';
import type { Reporter } from './reporter.js';
import type { SelfState } from './self.js';
import type { Suspicion } from './suspicion.js';

const EMPTY = new Uint8Array(0);

/** What the membership rules ask of the other mechanisms. */
/** How long, in probe intervals, a member heard alive again after a suspicion or death is not convicted on its host's silence. */
const FLAP_MEMORY_PERIODS = 10;

export interface RulesPort {
  /** Ends the suspicion of `id`, if any, and returns it uncancelled (the suspicions). */
  takeSuspicion(id: number): Suspicion | undefined;
  /** Applies a suspicion (the suspicions). */
  suspect(s: SuspectUpdate): void;
  /** The incarnation a life of `name`, unknown to the view, must exceed to be believed (the tombstones). */
  ceilingOf(name: string): number;
  /** Forgets the tombstones past their time (the tombstones). */
  pruneTombstones(): void;
  /** A member's address changed: the ring of the death watch follows addresses (the death watch). */
  addressChanged(): void;
  /** Name conflicts: a claim on a name held alive elsewhere, or on our own (the conflicts). */
  readonly conflicts: RulesConflicts;
}

/**
 * What the rules ask of the name conflicts: `claimed`, gossip claims member `id`, held alive elsewhere,
 * at `a.address` (a conflict or a move); `seen`, a conflict known at once; `claimedSelf`, our own name
 * claimed from another address; `refusesJoin`, whether such a joiner is turned away.
 */
export type RulesConflicts = Pick<NameConflicts, 'claimed' | 'seen' | 'claimedSelf' | 'refusesJoin'>;

/**
 * A death told directly to the member it is about, because a peer still holds it alive at or below that
 * incarnation (typically the other side of a healed partition): a live member refutes at once, rather
 * than when a reconnection attempt or a probe happens to reach it.
 */
interface Notice {
  readonly address: string;
  readonly name: string;
  readonly incarnation: number;
  /**
   * A suspicion instead: a joiner that this member held suspect, dead or left is told of its older
   * life's state, which it answers like any accusation (its leader hint treats it as a comeback, as
   * every member that held it so does). The reply to its join cannot tell it, being built after the
   * merge.
   */
  readonly suspect?: true;
}

export class MembershipRules {
  /** The highest incarnation of this member reported declared dead. */
  private declaredDeadAt = -1;
  /** When members came back from dead or left, by id: their accusations are distrusted for a while. */
  private readonly comebacks = new Map<number, number>();
  /** When each member held suspect, dead or left was last heard alive again (refuted, or came back). */
  private readonly backAt = new Map<number, number>();

  constructor(
    private readonly ctx: SwimContext,
    private readonly self: SelfState,
    private readonly reporter: Reporter,
    private readonly port: RulesPort,
  ) {}

  /**
   * Applies an alive statement; `quiet`: learnt while joining, not gossiped on; `vetted`: the alive
   * filter already accepted it; `moved`: the member's old address was pinged and did not answer, so a
   * new address is a move, not a conflict.
   */
  alive(heard: AliveUpdate, quiet = false, vetted = false, moved = false): void {
    const { view, clock, random, outbox } = this.ctx;
    let a = heard;
    const { directory, table, order } = view;
    if (a.name === this.ctx.name) {
      if (a.address !== this.ctx.address) {
        // Another process claims our name. Refuting would start an incarnation war with it; below our
        // incarnation it is an older life of ours that lived elsewhere.
        if (a.incarnation >= this.self.incarnation) this.port.conflicts.claimedSelf(a.address);
        return;
      }
      // Our own statement coming back is news only if someone claims a newer life of ours.
      if (a.incarnation > this.self.incarnation) this.self.refute(a.incarnation);
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
    if (current !== UNKNOWN && jumpsAhead(a.incarnation, table.incarnationOf(id))) {
      this.ctx.counters.incarnationJumps++;
      a = { ...a, incarnation: table.incarnationOf(id) + INCARNATION_JUMP_MAX };
    }
    const now = clock.now();
    if (current === UNKNOWN) {
      table.set(id, ALIVE, a.incarnation, now);
      table.setMetadata(id, a.meta);
      order.add(id, random);
      if (!quiet) outbox.enqueue(a, id);
      this.reporter.member('alive', id, 'unknown', 'joined');
      return;
    }
    const addressChanged = directory.addressOf(id) !== a.address;
    if (current === ALIVE && addressChanged && !moved) {
      // A lower incarnation from another address is stale news of an older life there.
      if (a.incarnation >= table.incarnationOf(id)) this.port.conflicts.claimed(id, a);
      return;
    }
    // Never an alive at the incarnation of a death: see `tombstones.ts`.
    if (!overrides(ALIVE, a.incarnation, current, table.incarnationOf(id))) return;
    this.port.takeSuspicion(id)?.cancel();
    const metaChanged = !sameBytes(table.metadataOf(id) ?? EMPTY, a.meta);
    table.set(id, ALIVE, a.incarnation, now);
    table.setMetadata(id, a.meta);
    if (addressChanged) {
      directory.setAddress(id, a.address);
      // A watch on the old address would watch nothing from now on.
      this.port.addressChanged();
    }
    order.add(id, random);
    outbox.enqueue(a, id);
    if (current === ALIVE) {
      if (addressChanged) this.reporter.member('update', id, 'alive', 'address-changed');
      else if (metaChanged) this.reporter.member('update', id, 'alive', 'metadata');
    } else if (current === SUSPECT) {
      this.backAt.set(id, now);
      if (!addressChanged) this.ctx.counters.refutationsSeen++;
      this.reporter.member('alive', id, 'suspect', addressChanged ? 'address-changed' : 'refuted');
    } else {
      this.comebacks.set(id, now);
      this.backAt.set(id, now);
      this.reporter.member('alive', id, stateName(current), 'rejoined');
    }
  }

  /**
   * Applies a dead statement (a left one when its author is the member itself). `ownSuspicion`: this
   * member's own suspicion ran out, and the statement is its own.
   */
  dead(heard: DeadUpdate, ownSuspicion?: Suspicion): void {
    const { view, clock, outbox } = this.ctx;
    const { directory, table } = view;
    let d = heard;
    const id = directory.find(d.name);
    if (id === undefined) return;
    if (id === view.selfId) {
      // A leave of ours at or above this life is an earlier life's (a restart at the same incarnation):
      // refuted like a death. While this member is leaving, `accused` does nothing.
      this.self.accused(d.incarnation, d.from === d.name ? 'left' : 'dead', d.from);
      // Our own leave coming back is no accusation: nothing to tell the application.
      if (d.from === d.name) return;
      // The application may want to rejoin, or raise an alarm: once per life declared dead, even when a
      // suspicion read just before made us refute already (copies of the death keep coming).
      if (d.incarnation > this.declaredDeadAt) {
        this.declaredDeadAt = d.incarnation;
        // A running member answers with a higher life: a refutation, or its own alive again.
        this.reporter.declaredDead(d, this.ctx.lifecycle.phase === 'running');
      }
      return;
    }
    const current = table.stateOf(id);
    if (current === UNKNOWN || d.incarnation < table.incarnationOf(id)) return;
    const left = d.from === d.name;
    if (!left && ownSuspicion === undefined && this.distrusts(d.from)) {
      // The accuser is one this member holds dead or left, or did until lately: cut off from it (an
      // isolated member, the far side of a partition) when it ran its suspicion, so it could not hear the
      // accused refute. At a heal, its fresh deaths reach members that heard the accused all along, by
      // gossip to the recently dead or just after its own comeback, and were believed and spread on:
      // healthy members were declared dead by everyone. As for a death in a state exchange, the accused
      // is suspected instead, and refutes if it lives.
      if (current === ALIVE)
        this.port.suspect({ kind: 'suspect', name: d.name, incarnation: d.incarnation, from: d.from });
      return;
    }
    if (jumpsAhead(d.incarnation, table.incarnationOf(id))) {
      this.ctx.counters.incarnationJumps++;
      // A leave is the member's own word, like an alive statement; a death is an accusation.
      if (!left) return;
      d = { ...d, incarnation: table.incarnationOf(id) + INCARNATION_JUMP_MAX };
    }
    if (!overrides(left ? LEFT : DEAD, d.incarnation, current, table.incarnationOf(id))) return;
    const held = this.port.takeSuspicion(id);
    const suspicion = ownSuspicion ?? held;
    suspicion?.cancel();
    table.set(id, left ? LEFT : DEAD, d.incarnation, clock.now());
    if (!left) table.setDeclaredDeadBy(id, { accuser: d.from, confirmations: suspicion?.confirmations ?? 0 });
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
   * it is joining. Returns a refusal, having merged nothing, when the delegates refuse the exchange (the
   * merge filter refused the list, or in a join the alive filter refused the sender itself, the joiner at
   * a seed or the seed at a joiner), or when the joiner claims a name another live member holds (under
   * the `holder` conflict policy); the exchange is answered with it.
   */
  merge(members: MemberList, from: string, join: boolean): Refusal | undefined {
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
    const sender = this.senderConflict(members, from, count);
    if (sender >= 0 && join && this.port.conflicts.refusesJoin) {
      const held = directory.addressOf(directory.find(from)!);
      return {
        code: 'FDKIT_JOIN_NAME_CONFLICT',
        reason: `the name ${from} is held by a live member at ${held}`,
      };
    }
    const joiner = join ? this.joinerOf(members, from, count) : undefined;
    if (joiner !== undefined && this.isNews(joiner)) {
      const reason = this.refuses(joiner);
      if (reason !== undefined) return { code: 'FDKIT_JOIN_REJECTED', reason };
    }
    for (let i = 0; i < count; i++) {
      if (i === sender) continue;
      const name = names[i]!;
      const incarnation = incarnations[i]!;
      const state = states[i]!;
      const id = directory.find(name);
      if (state === ALIVE && id !== view.selfId) {
        const current = id === undefined ? UNKNOWN : table.stateOf(id);
        const known = id === undefined ? -1 : table.incarnationOf(id);
        // Most of a state exchange repeats what this member holds: skip those entries cheaply. Not one
        // at another address: at the life held, it claims the name of a live member (see `alive`).
        if (
          (current === ALIVE || current === SUSPECT) &&
          known >= incarnation &&
          directory.addressOf(id!) === addresses[i]
        )
          continue;
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
          if (joiner !== undefined && name === from && id !== undefined) {
            const held = table.stateOf(id);
            if (
              (held === SUSPECT || held === DEAD || held === LEFT) &&
              incarnation > table.incarnationOf(id)
            ) {
              notices.push({
                address: addresses[i]!,
                name,
                incarnation: table.incarnationOf(id),
                suspect: true,
              });
            }
          }
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
          if (state === DEAD && id === view.selfId) this.self.withdrawOwnDeaths();
          if (id !== undefined) this.port.suspect({ kind: 'suspect', name, incarnation, from });
          break;
      }
    }
    for (const { address, name, incarnation, suspect } of notices) {
      const notice: Update = { kind: suspect === true ? 'suspect' : 'dead', name, incarnation, from: self };
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

  /**
   * Whether `id`, held suspect, dead or left, was heard alive again less than `FLAP_MEMORY_PERIODS` probe
   * intervals ago: a member whose link flaps comes back like that, and its next silence is likelier the
   * link's than its host's (the host silence then leaves it to Lifeguard's timeout). Without it, a cut
   * that came and went every 5 s had the split-brain resolver's sides down each other in 2 of 1,000
   * simulated schedules at n = 5, against none with memberlist's timing.
   */
  cameBackRecently(id: number): boolean {
    const back = this.backAt.get(id);
    if (back === undefined) return false;
    if (this.ctx.clock.now() - back < FLAP_MEMORY_PERIODS * this.ctx.config.probeIntervalMs) return true;
    this.backAt.delete(id);
    return false;
  }

  /**
   * Whether this member holds `name` dead or left, or held it so less than `gossipToTheDeadMs` ago (as
   * long as members held dead are gossiped to, a member back from the dead may still gossip what it
   * declared while cut off). Never itself.
   */
  private distrusts(name: string): boolean {
    const id = this.ctx.view.directory.find(name);
    if (id === undefined || id === this.ctx.view.selfId) return false;
    const state = this.ctx.view.table.stateOf(id);
    if (state === DEAD || state === LEFT) return true;
    const back = this.comebacks.get(id);
    if (back === undefined) return false;
    if (this.ctx.clock.now() - back < this.ctx.config.gossipToTheDeadMs) return true;
    this.comebacks.delete(id);
    return false;
  }

  /** The alive filter's reason to refuse `a`, counted, or undefined when it accepts it. */
  private refuses(a: AliveUpdate): string | undefined {
    const reason = this.ctx.delegates.filterAlive(a);
    if (reason !== undefined) this.ctx.counters.aliveRefused++;
    return reason;
  }

  /**
   * The index of the sender's own entry when it claims a name held alive at another address (reported
   * as a conflict), else -1. The sender is alive, it is talking to us, and the holder answered its
   * probes lately or it would be suspect: no ping is needed to tell a conflict from a move.
   */
  private senderConflict(members: MemberList, from: string, count: number): number {
    const { view, address: own } = this.ctx;
    const i = members.names.indexOf(from);
    if (i < 0 || i >= count || members.states[i] !== ALIVE) return -1;
    const claimed = members.addresses[i]!;
    const id = view.directory.find(from);
    if (id === undefined) return -1;
    if (id === view.selfId) {
      if (claimed === own) return -1;
      this.port.conflicts.claimedSelf(claimed);
      return i;
    }
    const held = view.directory.addressOf(id);
    if (view.table.stateOf(id) !== ALIVE || held === claimed) return -1;
    this.port.conflicts.seen(from, held, claimed);
    return i;
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
