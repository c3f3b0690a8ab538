/**
 * Which addresses of a mixed cluster hold fdkit members. An fdkit member speaking memberlist's wire marks
 * the pings and push-pulls it sends (an extra msgpack key that memberlist's decoder skips), and answers a
 * member it knows to be fdkit in fdkit's own format; anything in fdkit's own format also marks its
 * sender. A ping without the mark says that a memberlist member holds the address now (a restart under
 * another implementation), and unmarks it. Unknown addresses get memberlist's format: every member reads
 * it.
 */
const FDKIT = 1;
const MEMBERLIST = 2;
/**
 * Addresses remembered at most: a cluster's members, many times over. The marks come from the network,
 * so their memory must not grow with what arrives; the oldest is forgotten first, and then gets
 * memberlist's format again until its next marked ping.
 */
export const PEER_KINDS_MAX = 16_384;

/** The addresses this member knows to speak fdkit, and those it knows not to. */
export class PeerKinds {
  private readonly kinds = new Map<string, number>();
  /** The member each kind was learnt from, when it said its name: a new member at the address voids it. */
  private readonly names = new Map<string, string>();
  private readonly waiting = new Map<string, (() => void)[]>();

  /** True when `address` is known to hold an fdkit member. */
  isFdkit(address: string): boolean {
    return this.kinds.get(address) === FDKIT;
  }

  /** The addresses known to hold fdkit members. */
  *fdkitAddresses(): IterableIterator<string> {
    for (const [address, kind] of this.kinds) if (kind === FDKIT) yield address;
  }

  /** The member whose messages taught what `address` speaks, when it named itself. */
  learntFrom(address: string): string | undefined {
    return this.names.get(address);
  }

  /** True when what `address` speaks is known, either way. */
  isKnown(address: string): boolean {
    return this.kinds.has(address);
  }

  /** `address` holds an fdkit member: runs what waited for that. */
  markFdkit(address: string, name?: string): void {
    if (name !== undefined) this.names.set(address, name);
    if (this.kinds.get(address) === FDKIT) return;
    this.remember(address, FDKIT);
    const waiting = this.waiting.get(address);
    if (waiting === undefined) return;
    this.waiting.delete(address);
    for (const run of waiting) run();
  }

  /** `address` holds a member that speaks only memberlist: what waited for fdkit there never runs. */
  markMemberlist(address: string, name?: string): void {
    if (name !== undefined) this.names.set(address, name);
    this.remember(address, MEMBERLIST);
    this.waiting.delete(address);
  }

  /**
   * Runs `run` once `address` is known to hold an fdkit member (at once when it is); returns a function
   * that cancels the wait.
   */
  whenFdkit(address: string, run: () => void): () => void {
    if (this.isFdkit(address)) {
      run();
      return () => {};
    }
    if (this.kinds.get(address) === MEMBERLIST) return () => {};
    const list = this.waiting.get(address) ?? [];
    list.push(run);
    this.waiting.set(address, list);
    return () => {
      const at = list.indexOf(run);
      if (at >= 0) list.splice(at, 1);
      if (list.length === 0 && this.waiting.get(address) === list) this.waiting.delete(address);
    };
  }

  /** Forgets what is known of `address` (a new member holds it now). */
  forget(address: string): void {
    this.kinds.delete(address);
    this.names.delete(address);
  }

  private remember(address: string, kind: number): void {
    if (!this.kinds.has(address) && this.kinds.size >= PEER_KINDS_MAX) {
      // A Map iterates in insertion order: its first key is the oldest.
      const oldest = this.kinds.keys().next();
      if (oldest.done !== true) this.forget(oldest.value);
    }
    this.kinds.set(address, kind);
  }
}
