/**
 * The application's hooks into membership, as memberlist has them (its AliveDelegate, MergeDelegate,
 * Delegate's LocalState/MergeRemoteState, and ConflictDelegate): a say in who may join and whose state
 * is merged, a place for application state in every state exchange, and word of name conflicts. Each
 * is optional; each runs synchronously inside the protocol's handlers, so it must be quick and must not
 * call back into the member. A delegate that throws is treated as having refused (filters) or as having
 * nothing to say (state), and the error is logged: an application bug never stops the protocol.
 */

/** A member as a filter sees it: what an alive statement or a state exchange says about it. */
export interface CandidateMember {
  /** Its name. */
  readonly name: string;
  /** The address it announces. */
  readonly address: string;
  /** Its metadata (empty for none). */
  readonly meta: Uint8Array;
  /** The incarnation of the statement. */
  readonly incarnation: number;
}

/** A name claimed from two addresses at once, as {@link SwimDelegates.notifyConflict} hears of it. */
export interface NameConflict {
  /** The name both claim. */
  readonly name: string;
  /** The address of the member that held the name first. */
  readonly existingAddress: string;
  /** The address of the newcomer that claims it too. */
  readonly otherAddress: string;
  /** The address that holds the name once the conflict is resolved. */
  readonly holderAddress: string;
  /** True when this member is one of the two claimants. */
  readonly self: boolean;
}

/** The hooks an application may give a member; see the file's TSDoc. */
export interface SwimDelegates {
  /**
   * Vets a member heard of for the first time, or alive again at a new address or with new metadata:
   * return a reason to refuse it (a joiner it refuses gets `FDKIT_JOIN_REJECTED` with that reason), or
   * `undefined` to accept it.
   */
  filterAlive?(member: CandidateMember): string | undefined;
  /**
   * Vets the member list of a state exchange before any of it is merged: return a reason to refuse the
   * whole exchange (another cluster, say), or `undefined` to merge it. `join`: the peer is joining.
   */
  filterMerge?(members: readonly CandidateMember[], join: boolean): string | undefined;
  /** The application's state to send in a state exchange; `join`: the exchange is a join. */
  localState?(join: boolean): Uint8Array;
  /**
   * The peer's application state from a state exchange, once its member list is merged; `join`: the
   * exchange is a join (a joiner's request at the seed, or at the joiner the reply to its request).
   */
  mergeRemoteState?(state: Uint8Array, join: boolean): void;
  /** Told of every name conflict this member sees or is party to. */
  notifyConflict?(conflict: NameConflict): void;
}
