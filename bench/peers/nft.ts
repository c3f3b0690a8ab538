/**
 * Bytes and packets per member, counted by the kernel the same way for the three systems: an nftables
 * table of the bench's own (`ip fdkit_peers_<pid>`), one chain on the output hook that looks at loopback
 * packets only and accepts everything, and four sets of port numbers whose elements carry counters:
 *
 * - `udp_in`: UDP datagrams to a member's port; `udp_out`: from it (every member sends its datagrams
 *   from the port it is bound to);
 * - `tcp_in` / `tcp_out`: TCP segments to / from a member's port: the server side of a stream (state
 *   sync, join, Serf's and memberlist's TCP fallback probe, fdkit's death watch). The client side of a
 *   stream has an ephemeral port, so each TCP segment is counted once, at its server.
 *
 * A loopback packet passes the output hook once, so nothing is counted twice. Counters are of whole IP
 * packets: a UDP payload is the IP length minus 28 bytes (IPv4 + UDP headers). Every member of every
 * system gets its own port in a range of its own, so the counters are per member and per system.
 *
 * The table is made by {@link NftCounters.create} and deleted by {@link NftCounters.destroy}; tables
 * left by an earlier run that was killed (whose pid is gone) are deleted on create.
 */
import { spawnSync } from 'node:child_process';

const PREFIX = 'fdkit_peers_';
const SETS = ['udp_in', 'udp_out', 'tcp_in', 'tcp_out'] as const;
type SetName = (typeof SETS)[number];

export interface Counter {
  readonly packets: number;
  readonly bytes: number;
}

/** A member port's four counters. */
export type PortCounters = Readonly<Record<SetName, Counter>>;

const ZERO: Counter = { packets: 0, bytes: 0 };

function nft(args: readonly string[], input?: string): { ok: boolean; out: string; err: string } {
  const r = spawnSync('nft', args, {
    input,
    encoding: 'utf8',
    timeout: 10_000,
    env: { ...process.env, PATH: `${process.env.PATH ?? ''}:/usr/sbin:/sbin` },
  });
  return { ok: r.status === 0, out: r.stdout ?? '', err: (r.stderr ?? '') + (r.error?.message ?? '') };
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export class NftCounters {
  private constructor(readonly table: string) {}

  /** Creates the table, or explains why it cannot (no nft, not root). */
  static create(): NftCounters | string {
    const list = nft(['-j', 'list', 'tables', 'ip']);
    if (!list.ok) return `nft is not usable (${list.err.trim() || 'no output'})`;
    // Tables of earlier runs whose process is gone.
    for (const m of list.out.matchAll(/"name":\s*"fdkit_peers_(\d+)"/g)) {
      const pid = Number(m[1]);
      if (pid !== process.pid && !pidAlive(pid)) nft(['delete', 'table', 'ip', `${PREFIX}${pid}`]);
    }
    const table = `${PREFIX}${process.pid}`;
    const sets = SETS.map((s) => `  set ${s} { type inet_service; counter; }`).join('\n');
    const script = [
      `table ip ${table} {`,
      sets,
      '  chain out {',
      '    type filter hook output priority 0; policy accept;',
      '    oif "lo" udp dport @udp_in',
      '    oif "lo" udp sport @udp_out',
      '    oif "lo" tcp dport @tcp_in',
      '    oif "lo" tcp sport @tcp_out',
      '  }',
      '}',
      '',
    ].join('\n');
    const made = nft(['-f', '-'], script);
    if (!made.ok) return `nft could not create table ${table}: ${made.err.trim()}`;
    return new NftCounters(table);
  }

  /** Starts counting the traffic of these member ports. */
  add(ports: readonly number[]): void {
    if (ports.length === 0) return;
    const list = ports.join(', ');
    for (const s of SETS) {
      const r = nft(['add', 'element', 'ip', this.table, s, `{ ${list} }`]);
      if (!r.ok) throw new Error(`nft add element ${s} { ${list} }: ${r.err.trim()}`);
    }
  }

  /** Every counted port's counters. */
  read(): Map<number, PortCounters> {
    const r = nft(['-j', 'list', 'table', 'ip', this.table]);
    if (!r.ok) throw new Error(`nft list table ${this.table}: ${r.err.trim()}`);
    return parseNftCounters(r.out);
  }

  /** Deletes the table (idempotent). */
  destroy(): void {
    nft(['delete', 'table', 'ip', this.table]);
  }
}

/** The counters in `nft -j list table` output, per port. */
export function parseNftCounters(json: string): Map<number, PortCounters> {
  const out = new Map<number, Record<SetName, Counter>>();
  const doc = JSON.parse(json) as { nftables?: unknown[] };
  for (const item of doc.nftables ?? []) {
    const set = (item as { set?: { name?: string; elem?: unknown[] } }).set;
    if (set === undefined || !(SETS as readonly string[]).includes(set.name ?? '')) continue;
    for (const raw of set.elem ?? []) {
      const elem = (raw as { elem?: { val?: number; counter?: Counter } }).elem;
      if (elem?.val === undefined) continue;
      const entry = out.get(elem.val) ?? { udp_in: ZERO, udp_out: ZERO, tcp_in: ZERO, tcp_out: ZERO };
      entry[set.name as SetName] = elem.counter ?? ZERO;
      out.set(elem.val, entry);
    }
  }
  return out;
}

/** `b - a` for one port; missing counters read as zero. */
export function counterDelta(
  a: PortCounters | undefined,
  b: PortCounters | undefined,
): Record<SetName, Counter> {
  const d = (s: SetName): Counter => ({
    packets: (b?.[s].packets ?? 0) - (a?.[s].packets ?? 0),
    bytes: (b?.[s].bytes ?? 0) - (a?.[s].bytes ?? 0),
  });
  return { udp_in: d('udp_in'), udp_out: d('udp_out'), tcp_in: d('tcp_in'), tcp_out: d('tcp_out') };
}
