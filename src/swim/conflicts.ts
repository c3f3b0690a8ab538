/**
 * Name conflicts: one name claimed from two addresses at once (two processes started with the same
 * name, say). memberlist's rule decides what is a conflict: an alive statement from another address for
 * a member held alive is one, unless the old address no longer answers (then the member moved: it
 * restarted elsewhere). Before this file, such a statement made the holder refute, the newcomer refute
 * back, and the two raised their incarnations against each other for as long as both ran.
 *
 * What is a conflict, and who "answers" (docs/design.md, "Name conflicts"):
 * - at a member that holds the name alive (not suspect) at another address: for gossip, a ping of the
 *   held address is acked (a silent one lets the statement through: a move); in a state exchange, the
 *   sender's own entry is a conflict at once (the sender is alive, it is talking to us, and the holder
 *   answered its probes, or it would be suspect);
 * - at a claimant: any alive statement of its own name from another address, at or above its own
 *   incarnation (below, it is an older life of its own elsewhere). A claimant never refutes one.
 *
 * The policies: `holder` (memberlist's, the default) keeps the name where it is held: the newcomer's join
 * is refused, both claimants are told. `majority` (serf's) asks every member each claimant knows which
 * address it holds the name at; a claimant with fewer votes than the other address stops (without a leave,
 * which others would take as the holder's).
 */

import { ALIVE, SUSPECT } from '../membership/member-state.js';
import type { Timer } from '../runtime/clock.js';
import type { ConflictPolicy } from './conflict-policy.js';
import type { SwimContext } from './context.js';
import type { NameConflict } from './delegates.js';
import type { ConflictEvent } from './events.js';
import type { AliveUpdate, ConflictNotice, NameQuery } from './messages.js';

/** A vote lasts this many probe intervals: a round trip to every member, with room for a lost datagram. */
const VOTE_PROBE_INTERVALS = 2;
/** The reports remembered to suppress repeats; the oldest is forgotten first. */
const REPORTS_KEPT = 256;

/** What the conflicts mechanism asks of the others. */
export interface ConflictsPort {
  /** Pings `id` once at the address it is held at (the prober). */
  pingOnce(id: number, timeoutMs: number, done: (acked: boolean) => void): void;
  /** Applies `a`, whose member's old address did not answer: it moved (the rules). */
  moved(a: AliveUpdate): void;
  /** Takes this member out of the protocol, without a leave: it lost the name (the façade). */
  yieldName(): void;
  /** The application's conflict delegate, when it has one. */
  readonly notifyConflict?: ((conflict: NameConflict) => void) | undefined;
}

interface Vote {
  /** The other address that claims our name. */
  readonly other: string;
  /** Voter name → the address it holds our name at. */
  readonly ballots: Map<string, string>;
  readonly timer: Timer;
}

export class NameConflicts {
  private readonly reported = new Map<string, number>();
  private readonly checking = new Map<number, AliveUpdate>();
  private vote: Vote | undefined;
  /** Other address → when the last vote about its claim ended. */
  private readonly votes = new Map<string, number>();

  constructor(
    private readonly ctx: SwimContext,
    private readonly policy: ConflictPolicy,
    private readonly emit: (event: ConflictEvent) => void,
    private readonly port: ConflictsPort,
  ) {}

  /** Whether a newcomer that joins through this member under a held name is refused. */
  get refusesJoin(): boolean {
    return this.policy === 'holder';
  }

  /**
   * Gossip says member `id`, held alive, is at another address now (`a`): a conflict if its held address
   * still answers a ping, a move otherwise. One check at a time per member; the latest claim wins.
   */
  claimed(id: number, a: AliveUpdate): void {
    const pending = this.checking.has(id);
    this.checking.set(id, a);
    if (pending) return;
    const { view, config, lifecycle } = this.ctx;
    const held = view.directory.addressOf(id);
    this.port.pingOnce(id, 2 * config.probeTimeoutMs, (acked) => {
      const claim = this.checking.get(id)!;
      this.checking.delete(id);
      if (!lifecycle.isRunning) return;
      if (acked) this.seen(claim.name, held, claim.address);
      else this.port.moved(claim);
    });
  }

  /**
   * This member holds `name` alive at `held`, and `other` claims it too: reports it, and tells both
   * claimants directly (neither hears the other's statements: each holds the name as its own).
   */
  seen(name: string, held: string, other: string): void {
    const conflict = { name, existingAddress: held, otherAddress: other, holderAddress: held, self: false };
    if (!this.report(conflict)) return;
    this.tell(held, held, other, name);
    this.tell(other, held, other, name);
  }

  /**
   * An alive statement of this member's own name came from `other`; the other claimant is told that
   * this member holds the name (under the majority policy, that is this member's vote).
   */
  claimedSelf(other: string): void {
    const { name, address: own } = this.ctx;
    if (this.policy === 'majority') {
      if (this.startVote(other)) this.tell(other, own, other);
      return;
    }
    // At the holder itself it is obvious who answers: this member, which keeps its name.
    const conflict = { name, existingAddress: own, otherAddress: other, holderAddress: own, self: true };
    if (this.report(conflict)) this.tell(other, own, other);
  }

  /** Handles a conflict datagram that arrived from `fromAddress`. */
  handle(fromAddress: string, p: ConflictNotice | NameQuery): void {
    if (p.type === 'conflict') this.handleNotice(p);
    else this.handleQuery(fromAddress, p);
  }

  /** A notice of a conflict, or a vote: `p.from` holds `p.name` at `p.holderAddress`. */
  handleNotice(p: ConflictNotice): void {
    const { name, address: own } = this.ctx;
    if (p.name !== name) return;
    // A notice from our own name is the other claimant's: it starts a vote, but is none.
    const voter = p.from !== name;
    const vote = this.vote;
    if (vote !== undefined) {
      if (voter) vote.ballots.set(p.from, p.holderAddress);
      return;
    }
    // A vote for this member's own address, arrived after its vote ended: no conflict in it.
    if (p.holderAddress === own && p.otherAddress === own) return;
    const other = p.holderAddress === own ? p.otherAddress : p.holderAddress;
    if (this.policy === 'majority') {
      this.startVote(other);
      if (voter) this.vote?.ballots.set(p.from, p.holderAddress);
      return;
    }
    const holder = p.holderAddress;
    this.report({
      name,
      existingAddress: holder,
      otherAddress: holder === own ? p.otherAddress : own,
      holderAddress: holder,
      self: true,
    });
  }

  /** A claimant asks which address this member holds `q.name` at: it answers if it holds it live. */
  handleQuery(fromAddress: string, q: NameQuery): void {
    const { view, name, outbox } = this.ctx;
    const id = view.directory.find(q.name);
    if (id === undefined) return;
    const state = view.table.stateOf(id);
    if (state !== ALIVE && state !== SUSPECT) return;
    const answer: ConflictNotice = {
      type: 'conflict',
      from: name,
      name: q.name,
      holderAddress: view.directory.addressOf(id),
      otherAddress: fromAddress,
      updates: [],
    };
    outbox.sendPacket(fromAddress, answer);
  }

  /** Sends `to` a notice: this member holds `name` at `held`, and `other` claims it. */
  private tell(to: string, held: string, other: string, name = this.ctx.name): void {
    const notice: ConflictNotice = {
      type: 'conflict',
      from: this.ctx.name,
      name,
      holderAddress: held,
      otherAddress: other,
      updates: [],
    };
    this.ctx.outbox.sendPacket(to, notice);
  }

  /** Ends a vote under way without a decision: the member stopped. */
  stop(): void {
    this.vote?.timer.cancel();
    this.vote = undefined;
  }

  /** Serf's resolution: ask every live member which address it holds this member's name at. */
  private startVote(other: string): boolean {
    const { view, clock, config, outbox, name } = this.ctx;
    if (this.vote !== undefined || this.votedLately(other)) return false;
    const timer = clock.setTimer(VOTE_PROBE_INTERVALS * config.probeIntervalMs, () => this.decide());
    this.vote = { other, ballots: new Map(), timer };
    const { directory, table } = view;
    for (let id = 0; id < directory.size; id++) {
      const state = table.stateOf(id);
      if (id === view.selfId || (state !== ALIVE && state !== SUSPECT)) continue;
      outbox.sendPacket(directory.addressOf(id), { type: 'name-query', from: name, name, updates: [] });
    }
    return true;
  }

  private decide(): void {
    const vote = this.vote!;
    this.vote = undefined;
    // A member stopped meanwhile has nothing left to decide.
    if (!this.ctx.lifecycle.isRunning) return;
    if (this.votes.size >= REPORTS_KEPT) this.votes.delete(this.votes.keys().next().value!);
    this.votes.set(vote.other, this.ctx.clock.now());
    const own = this.ctx.address;
    const tally = new Map<string, number>();
    for (const address of vote.ballots.values()) tally.set(address, (tally.get(address) ?? 0) + 1);
    const mine = tally.get(own) ?? 0;
    let winner = own;
    let most = mine;
    for (const [address, votes] of tally) {
      if (votes > most) {
        winner = address;
        most = votes;
      }
    }
    const name = this.ctx.name;
    if (winner === own) {
      this.report({ name, existingAddress: own, otherAddress: vote.other, holderAddress: own, self: true });
      return;
    }
    this.port.yieldName();
    this.report({ name, existingAddress: winner, otherAddress: own, holderAddress: winner, self: true });
  }

  /** Whether a vote about `other`'s claim ended within the window: its outcome stands that long. */
  private votedLately(other: string): boolean {
    const ended = this.votes.get(other);
    return ended !== undefined && this.ctx.clock.now() - ended < this.windowMs();
  }

  /** Emits the conflict unless it was reported within the window; returns whether it did. */
  private report(conflict: NameConflict): boolean {
    const now = this.ctx.clock.now();
    const k = key(conflict);
    const last = this.reported.get(k);
    if (last !== undefined && now - last < this.windowMs()) return false;
    this.reported.delete(k);
    if (this.reported.size >= REPORTS_KEPT) this.reported.delete(this.reported.keys().next().value!);
    this.reported.set(k, now);
    this.ctx.counters.nameConflicts++;
    this.emit({ type: 'conflict', ...conflict, atMs: now, wallMs: this.ctx.clock.wallNow() });
    try {
      this.port.notifyConflict?.(conflict);
    } catch {
      // An application bug never stops the protocol: counted as the other delegates' errors are, and the
      // conflict event has told of the conflict already.
      this.ctx.counters.delegateErrors++;
    }
    return true;
  }

  private windowMs(): number {
    return this.ctx.config.pushPullIntervalMs;
  }
}

function key(c: NameConflict): string {
  return `${c.name}\n${c.existingAddress}\n${c.otherAddress}\n${c.holderAddress}\n${c.self}`;
}
