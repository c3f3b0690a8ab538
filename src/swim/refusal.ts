/**
 * Why a member turns a joiner away. A seed that will not take a joiner in answers its state exchange
 * with a refusal instead of its member list, so that the joiner's `join()` fails with the reason rather
 * than resolving while it stays alone (memberlist fails such a join with "No installed keys could
 * decrypt the message"; a silent seed leaves the operator to guess).
 */

/**
 * The code of a refused join, carried on the wire and by the joiner's error. Append-only: applications
 * branch on these names, and the wire carries their index in {@link JOIN_REFUSAL_CODES}.
 */
export type JoinRefusalCode =
  /** Both sides have keyrings, and no key installed at the seed opened the joiner's message. */
  | 'FDKIT_JOIN_KEY_MISMATCH'
  /** The cluster labels differ. */
  | 'FDKIT_JOIN_LABEL_MISMATCH'
  /** The seed requires encryption, and the joiner sent plaintext (it has no keyring). */
  | 'FDKIT_JOIN_NOT_ENCRYPTED'
  /** The joiner sent an encrypted message to a seed that has no keyring. */
  | 'FDKIT_JOIN_UNEXPECTED_ENCRYPTION'
  /** Another live member that answers holds the joiner's name at another address. */
  | 'FDKIT_JOIN_NAME_CONFLICT'
  /** The seed's alive filter or merge filter refused the joiner; the reason is the filter's. */
  | 'FDKIT_JOIN_REJECTED';

/** Every {@link JoinRefusalCode}, in wire order: a code's index is its number on the wire. */
export const JOIN_REFUSAL_CODES: readonly JoinRefusalCode[] = [
  'FDKIT_JOIN_KEY_MISMATCH',
  'FDKIT_JOIN_LABEL_MISMATCH',
  'FDKIT_JOIN_NOT_ENCRYPTED',
  'FDKIT_JOIN_UNEXPECTED_ENCRYPTION',
  'FDKIT_JOIN_NAME_CONFLICT',
  'FDKIT_JOIN_REJECTED',
];

/** A seed's refusal of a joiner: the code, and a sentence for people. */
export interface Refusal {
  /** Why, as a stable code. */
  readonly code: JoinRefusalCode;
  /** E.g. `no installed key could open the message`; at most 255 bytes of UTF-8 on the wire. */
  readonly reason: string;
}
