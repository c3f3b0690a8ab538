/**
 * Watches in the simulator (`death-watch.ts` in the core, `Transport.watch` on the network): held
 * connections between simulated processes. Opening one takes a handshake across the simulated network;
 * what ends it is what a kernel would do: a process killed on a live host closes its end, so each of its
 * watchers learns one network delay later; a host that goes down, a pause or a partition closes
 * nothing.
 */
import type { Watch, WatchEnd } from '../membership/connection.js';
import type { SimNetwork } from './network.js';
import type { SimProcess } from './process.js';

/** Time allowed to open a watch, as the node's default `connectTimeoutMs`. */
const CONNECT_TIMEOUT_MS = 10_000;

interface Entry {
  readonly watcher: number;
  readonly onEnd: (reason: WatchEnd) => void;
  live: boolean;
}

export class SimWatches {
  /** Open watches by watched process. */
  private readonly open = new Map<number, Set<Entry>>();

  constructor(
    private readonly processes: readonly SimProcess[],
    private readonly network: SimNetwork,
  ) {}

  /** Process `from` opens a watch on process `to` (−1: an address that is nobody's). */
  watch(from: number, to: number, onEnd: (reason: WatchEnd) => void): Watch {
    const entry: Entry = { watcher: from, onEnd, live: true };
    const handle: Watch = {
      cancel: () => {
        entry.live = false;
        this.open.get(to)?.delete(entry);
      },
    };
    const watcher = this.processes[from]!;
    const target = to < 0 ? undefined : this.processes[to];
    const handshake =
      target === undefined || (target.state === 'crashed' && !target.hostUp)
        ? -1
        : this.network.handshakeDelay(from, to, CONNECT_TIMEOUT_MS);
    if (handshake < 0) {
      watcher.setTimer(CONNECT_TIMEOUT_MS, () => end(entry, 'failed'));
      return handle;
    }
    watcher.setTimer(handshake, () => {
      if (!entry.live || target === undefined) return;
      if (target.state === 'crashed') {
        end(entry, target.hostUp ? 'refused' : 'failed');
        return;
      }
      let set = this.open.get(to);
      if (set === undefined) {
        set = new Set();
        this.open.set(to, set);
      }
      set.add(entry);
    });
    return handle;
  }

  /** Process `member` crashed: with its host up, every watch on it is closed by that host's kernel. */
  crashed(member: number, hostUp: boolean): void {
    const set = this.open.get(member);
    this.open.delete(member);
    if (set === undefined || !hostUp) return;
    for (const entry of set) {
      // The closing segment is lost across a partition; the watch then just stays silent.
      if (!this.network.reachable(member, entry.watcher)) continue;
      const delay = this.network.streamDelay(member, entry.watcher);
      this.processes[entry.watcher]!.setTimer(delay, () => end(entry, 'closed'));
    }
  }
}

function end(entry: Entry, reason: WatchEnd): void {
  if (!entry.live) return;
  entry.live = false;
  entry.onEnd(reason);
}
