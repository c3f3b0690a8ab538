/**
 * The version vector memberlist puts in every alive message and push-pull entry: protocol min, max and
 * current, then the delegate's (the application's) min, max and current. Members check each other's
 * vectors when they exchange state (`verifyProtocol`), and a sender picks features by the receiver's
 * maximum: the TCP fallback ping from 3, nacks from 4, the CRC from 5.
 */
import { InvalidOptionError } from '../../errors.js';
import { describeReceived } from '../../options.js';

/** memberlist's protocol range: fdkit speaks every feature up to 5, and 2 as current, memberlist's default. */
export const PROTOCOL_MIN = 1;
export const PROTOCOL_MAX = 5;
export const PROTOCOL_CURRENT = 2;

/** The application's protocol versions, which memberlist carries and checks but does not interpret. */
export interface DelegateVersions {
  /** The lowest version this application understands (`DelegateProtocolMin`), 0–255. */
  readonly min: number;
  /** The highest version it understands (`DelegateProtocolMax`), 0–255. */
  readonly max: number;
  /** The version it speaks (`DelegateProtocolVersion`), from `min` to `max`. */
  readonly current: number;
}

/** memberlist's default: no delegate protocol (0, 0, 0). */
export const NO_DELEGATE_VERSIONS: DelegateVersions = { min: 0, max: 0, current: 0 };

/**
 * The six-byte vector of this member, checked: each version is 0–255 and min ≤ current ≤ max.
 *
 * @throws {@link InvalidOptionError} naming `owner` and `option`.
 */
export function ownVersionVector(
  owner: string,
  delegate: DelegateVersions,
  option = 'delegateVersions',
): Uint8Array {
  const { min, max, current } = delegate;
  const byte = (v: unknown): boolean => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 255;
  if (!byte(min) || !byte(max) || !byte(current) || min > current || current > max) {
    throw new InvalidOptionError(
      'FDKIT_INVALID_OPTION',
      option,
      `${owner}: option ${option} must be { min, max, current }, integers 0-255 with min <= current <= max, got ${describeReceived(delegate)}`,
    );
  }
  return Uint8Array.of(PROTOCOL_MIN, PROTOCOL_MAX, PROTOCOL_CURRENT, min, max, current);
}

/**
 * The vectors of the other members, as they last stated them, so that this member relays each member's
 * own vector rather than its own. Bounded by the names it is asked to hold: the caller forgets a name
 * when the view forgets the member.
 */
export class VersionBook {
  private readonly vectors = new Map<string, Uint8Array>();

  constructor(private readonly own: Uint8Array) {}

  /** Records `name`'s vector; one shorter than 3 bytes says nothing and is ignored. */
  learn(name: string, vsn: Uint8Array): void {
    if (vsn.length < 3) return;
    const held = this.vectors.get(name);
    if (held !== undefined && equal(held, vsn)) return;
    this.vectors.set(name, vsn.length === 6 ? vsn.slice() : padded(vsn));
  }

  /** `name`'s vector: its own as learnt, else this member's (fdkit members all speak the same). */
  vectorOf(name: string): Uint8Array {
    return this.vectors.get(name) ?? this.own;
  }

  /** The highest protocol version `name` understands (this member's maximum when not known). */
  protocolMaxOf(name: string): number {
    return this.vectorOf(name)[1] ?? PROTOCOL_MAX;
  }

  /** Drops what is known of `name`. */
  forget(name: string): void {
    this.vectors.delete(name);
  }
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function padded(vsn: Uint8Array): Uint8Array {
  const out = new Uint8Array(6);
  out.set(vsn.subarray(0, 6));
  return out;
}
