/**
 * Network namespaces for end-to-end tests under packet loss and partitions (docs/design.md, "Tests and
 * benchmarks"), and for the partition example (examples/partition/). The
 * kernel of the CI machine has no netem, so loss comes from an nftables rule that drops a given
 * percentage of incoming packets at random (`numgen random mod 100 < P drop`) in each host namespace.
 *
 * Layout, for a prefix `<name>-<pid>` (`fdkit-loss-<pid>` unless the caller names its own, as the chaos bench
 * does, so that one run's cleanup of stale namespaces never takes another's):
 *
 *   <prefix>-br    one bridge `br0`, with one veth end `pK` per host attached to it
 *   <prefix>-hK    the other veth end as `eth0`, address 10.X.Y.(K+1)/24, `lo` up, the loss table
 *
 * Nothing connects these namespaces to the one the test runs in, so the agents' traffic cannot leave
 * them, and no name, address or port of the machine is touched. The pid in the prefix keeps parallel
 * runs apart, and lets a later run recognise (and remove) what a crashed run left behind: namespaces with
 * the prefix whose pid is no longer alive. Every command runs with a timeout.
 */
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Longest any one `ip` or `nft` command may take; they take milliseconds when the kernel is well. */
const COMMAND_TIMEOUT_MS = 10_000;

/** Names of this module's namespaces start with this (or a caller's own prefix), then `-<pid>-`. */
export const NETNS_PREFIX = 'fdkit-loss';

/** The nftables table (IPv4 only: the agents here speak IPv4, and IPv6 noise should not be counted). */
const TABLE = 'fdkit_loss';

/**
 * The path of `command` on PATH, or in /usr/sbin and /sbin, where Debian puts `ip` and `nft` but which a
 * non-login root shell may leave off PATH; the bare name (which then fails to start) when nowhere.
 */
function locate(command: string): string {
  const dirs = [...(process.env.PATH ?? '').split(delimiter).filter((d) => d !== ''), '/usr/sbin', '/sbin'];
  for (const dir of dirs) {
    const path = join(dir, command);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // Not here.
    }
  }
  return command;
}

/** iproute2's `ip`, as every command here and the agents' `ip netns exec` run it. */
const IP = locate('ip');
const NFT = locate('nft');

/** A command's output, or why it failed. */
export interface CommandResult {
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `command args` (with `input` on stdin) and resolves with its output; rejects with the command line,
 * exit status and stderr when it fails, cannot start or outlives {@link COMMAND_TIMEOUT_MS}.
 */
function run(command: string, args: readonly string[], input = ''): Promise<CommandResult> {
  const line = [command, ...args].join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      stdout += s;
    });
    child.stderr.setEncoding('utf8').on('data', (s: string) => {
      stderr += s;
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, COMMAND_TIMEOUT_MS);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`${line}: ${error.message}`));
    });
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      if (status === 0) resolve({ stdout, stderr });
      else {
        const why = timedOut
          ? `no answer in ${COMMAND_TIMEOUT_MS} ms`
          : `exit ${status ?? `signal ${signal}`}${stderr === '' ? '' : `: ${stderr.trim()}`}`;
        reject(new Error(`${line}: ${why}`));
      }
    });
    // A command that does not read its stdin closes it; the write error that follows is not the failure.
    child.stdin.on('error', () => {});
    child.stdin.end(input);
  });
}

/** True when `command` starts and succeeds; `args` make it print its version and exit. */
async function available(command: string, args: readonly string[]): Promise<boolean> {
  try {
    await run(command, args);
    return true;
  } catch {
    return false;
  }
}

/**
 * What this machine lacks for the namespace tests, as sentences for a failure message; empty when nothing.
 * The tests fail with this rather than skip: CI runs as root with both packages installed (`.ci/run`),
 * so a missing prerequisite is a broken environment, not an optional test.
 */
export async function missingPrerequisites(): Promise<string[]> {
  const missing: string[] = [];
  if (process.getuid?.() !== 0) {
    missing.push(`root (this runs as uid ${process.getuid?.() ?? '?'}; network namespaces need root)`);
  }
  if (!(await available(IP, ['-V']))) missing.push('`ip` (Debian package iproute2)');
  if (!(await available(NFT, ['--version']))) missing.push('`nft` (Debian package nftables)');
  return missing;
}

/** Throws the message of {@link missingPrerequisites} when anything is missing. */
export async function requirePrerequisites(): Promise<void> {
  const missing = await missingPrerequisites();
  if (missing.length > 0) {
    throw new Error(
      `the network-namespace test needs ${missing.join(', ')}; ` +
        'run it as root after `apt-get install -y iproute2 nftables` (as .ci/run does)',
    );
  }
}

/** Names of the namespaces that exist now. */
export async function listNamespaces(): Promise<string[]> {
  const { stdout } = await run(IP, ['netns', 'list']);
  // Lines look like `name (id: 3)` or just `name`.
  return stdout
    .split('\n')
    .map((l) => l.trim().split(/\s+/)[0] ?? '')
    .filter((name) => name !== '');
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else; only ESRCH means gone.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * Removes namespaces that a run of this module left behind when it crashed: those named with `prefix`
 * ({@link NETNS_PREFIX} by default) and a pid that is no longer alive. Agents still running in them (orphans of that
 * run) are killed first, since a namespace lives on as long as a process is in it. Resolves with the
 * names removed.
 */
export async function removeStaleNamespaces(prefix = NETNS_PREFIX): Promise<string[]> {
  const pattern = new RegExp(`^${prefix}-(\\d+)-`);
  const stale = (await listNamespaces()).filter((name) => {
    const pid = Number(pattern.exec(name)?.[1] ?? Number.NaN);
    // A pid reused since by another process keeps its namespaces until that one ends: harmless, and
    // removed by a later run.
    return Number.isSafeInteger(pid) && pid !== process.pid && !alive(pid);
  });
  for (const name of stale) {
    try {
      const { stdout } = await run(IP, ['netns', 'pids', name]);
      for (const pid of stdout.split(/\s+/).filter((p) => p !== '')) {
        try {
          process.kill(Number(pid), 'SIGKILL');
        } catch {
          // Ended meanwhile.
        }
      }
      await run(IP, ['netns', 'delete', name]);
    } catch (error) {
      // Another run starting at the same time may have removed it first: only one still there is a failure.
      if ((await listNamespaces()).includes(name)) throw error;
    }
  }
  return stale;
}

/** One host namespace and its address on the shared bridge. */
export interface NetnsHost {
  /** The namespace's name. */
  readonly netns: string;
  /** The command prefix that runs a program in it: `ip netns exec NAME`. */
  readonly exec: readonly string[];
  /** Its IPv4 address on `eth0`. */
  readonly ip: string;
}

/** nftables counters of one host namespace: IPv4 packets that arrived on `eth0`, and those dropped. */
export interface LossCount {
  readonly netns: string;
  readonly seen: number;
  readonly dropped: number;
}

/** The shape of `nft -j list counters` that is read here. */
interface NftJson {
  readonly nftables: readonly { readonly counter?: { readonly name: string; readonly packets: number } }[];
}

const created = new Set<string>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Last resort when the test process ends without its afterAll; a SIGKILLed run is cleaned up by the
  // next one instead (removeStaleNamespaces).
  process.once('exit', () => {
    for (const name of created) {
      spawnSync(IP, ['netns', 'delete', name], { timeout: COMMAND_TIMEOUT_MS, stdio: 'ignore' });
    }
  });
}

async function addNamespace(name: string): Promise<void> {
  await run(IP, ['netns', 'add', name]);
  created.add(name);
  // Loopback is down in a new namespace; some programs (and `localhost`) expect it up.
  await run(IP, ['-n', name, 'link', 'set', 'lo', 'up']);
}

/** Runs `argv` in `host`'s namespace (with `input` on stdin), bounded as every command here. */
export function runIn(host: NetnsHost, argv: readonly string[], input = ''): Promise<CommandResult> {
  return run(host.exec[0]!, [...host.exec.slice(1), ...argv], input);
}

/** Runs `nft args` in `host`'s namespace. */
export function nft(host: NetnsHost, args: readonly string[], input = ''): Promise<CommandResult> {
  return runIn(host, [NFT, ...args], input);
}

/** `nft` script for a host namespace's table, dropping `percent` % of incoming IPv4 packets. */
function lossScript(percent: number): string {
  // Drop at the input hook of every host and nowhere else: a datagram from one host to another crosses
  // exactly one input hook (the receiver's), so each packet is lost with probability `percent` once,
  // whichever way it goes; dropping on output as well would compound it to 1 − (1 − p)². The rule takes
  // all IPv4, not UDP alone: loss on a real network hits TCP too, and the members' TCP traffic (join,
  // push-pull state sync, the connection checks that refute or confirm a suspicion) must cope with lost
  // SYNs and segments as much as their UDP probes with lost datagrams. ARP is not IP and is spared:
  // address resolution is not what is under test. Only packets from `eth0` count: lo carries none of
  // the cluster's traffic and should not dilute the measured ratio.
  //
  // One file is one transaction: declaring the table and chain again is a no-op once they exist, and
  // flushing the chain and adding the rules changes the rate atomically. The named counters belong to the
  // table, not to the rules, and keep their counts.
  return (
    `table ip ${TABLE} {\n` +
    '  counter seen {}\n' +
    '  counter dropped {}\n' +
    '  chain input {\n' +
    '    type filter hook input priority 0; policy accept;\n' +
    '  }\n' +
    '}\n' +
    `flush chain ip ${TABLE} input\n` +
    `add rule ip ${TABLE} input iifname "eth0" counter name seen\n` +
    (percent > 0
      ? `add rule ip ${TABLE} input iifname "eth0" numgen random mod 100 < ${percent} counter name dropped drop\n`
      : '')
  );
}

/** A bridge namespace and `count` host namespaces on it, with a loss rate that can be changed. */
export class LossNetwork {
  readonly prefix: string;
  readonly bridge: string;
  readonly hosts: readonly NetnsHost[];
  /** The /24 the hosts share, e.g. `10.83.41.0/24`. */
  readonly subnet: string;

  private constructor(prefix: string, subnet: string, hosts: readonly NetnsHost[]) {
    this.prefix = prefix;
    this.bridge = `${prefix}-br`;
    this.subnet = `${subnet}.0/24`;
    this.hosts = hosts;
  }

  /**
   * Creates the namespaces (after removing stale ones of crashed runs with the same `name`), with no loss
   * yet. On failure, removes whatever it had created and rethrows.
   */
  static async create(count: number, name = NETNS_PREFIX): Promise<LossNetwork> {
    if (!Number.isInteger(count) || count < 1 || count > 200) throw new Error(`bad host count ${count}`);
    await requirePrerequisites();
    installExitHook();
    await removeStaleNamespaces(name);
    const pid = process.pid;
    const prefix = `${name}-${pid}`;
    // 10.X.Y.0/24 from the pid (below 2^16 with Linux's default pid_max): distinct for concurrent runs.
    // Isolation does not rest on it (no namespace here routes anywhere else); it keeps addresses in logs
    // of two runs apart.
    const subnet = `10.${(pid >> 8) & 0xff}.${pid & 0xff}`;
    const hosts = Array.from({ length: count }, (_, k) => ({
      netns: `${prefix}-h${k}`,
      exec: [IP, 'netns', 'exec', `${prefix}-h${k}`],
      ip: `${subnet}.${k + 1}`,
    }));
    const network = new LossNetwork(prefix, subnet, hosts);
    try {
      await addNamespace(network.bridge);
      await run(IP, ['-n', network.bridge, 'link', 'add', 'br0', 'type', 'bridge']);
      await run(IP, ['-n', network.bridge, 'link', 'set', 'br0', 'up']);
      for (const [k, host] of hosts.entries()) {
        await addNamespace(host.netns);
        // Created inside the bridge namespace, the peer moved straight into the host's: the interface
        // names never exist in the test's own namespace, where another run could hold the same ones.
        await run(IP, [
          ...['-n', network.bridge, 'link', 'add', `p${k}`, 'type', 'veth'],
          ...['peer', 'name', 'eth0', 'netns', host.netns],
        ]);
        await run(IP, ['-n', network.bridge, 'link', 'set', `p${k}`, 'master', 'br0']);
        await run(IP, ['-n', network.bridge, 'link', 'set', `p${k}`, 'up']);
        await run(IP, ['-n', host.netns, 'addr', 'add', `${host.ip}/24`, 'dev', 'eth0']);
        await run(IP, ['-n', host.netns, 'link', 'set', 'eth0', 'up']);
      }
      await network.setLoss(0);
    } catch (error) {
      await network.destroy();
      throw error;
    }
    return network;
  }

  /** Sets every host namespace to drop `percent` % of incoming IPv4 packets at random (0 to 100). */
  async setLoss(percent: number): Promise<void> {
    if (!Number.isInteger(percent) || percent < 0 || percent > 100) throw new Error(`bad loss ${percent} %`);
    await Promise.all(this.hosts.map((h) => nft(h, ['-f', '-'], lossScript(percent))));
  }

  /**
   * Takes host `index`'s `eth0` down, or up again, inside its namespace: a host whose cable is pulled.
   * Nothing tells the others (no FIN, no RST, no ICMP); its own sends fail at once for want of a route.
   * Bringing the link up restores the address's route, so the host is back where it was.
   */
  async setLink(index: number, state: 'up' | 'down'): Promise<void> {
    const host = this.hosts[index];
    if (host === undefined) throw new Error(`no host ${index} (the network has ${this.hosts.length})`);
    await run(IP, ['-n', host.netns, 'link', 'set', 'eth0', state]);
  }

  /** The counters of every host namespace, in host order; they only grow. */
  async counts(): Promise<LossCount[]> {
    return Promise.all(
      this.hosts.map(async (h) => {
        const { stdout } = await nft(h, ['-j', 'list', 'counters', 'table', 'ip', TABLE]);
        const counters = new Map<string, number>();
        for (const item of (JSON.parse(stdout) as NftJson).nftables) {
          if (item.counter !== undefined) counters.set(item.counter.name, item.counter.packets);
        }
        const seen = counters.get('seen');
        const dropped = counters.get('dropped');
        if (seen === undefined || dropped === undefined)
          throw new Error(`${h.netns}: no loss counters in ${stdout}`);
        return { netns: h.netns, seen, dropped };
      }),
    );
  }

  /**
   * Deletes every namespace this network created. Processes still inside keep theirs alive (unnamed)
   * until they end, so callers kill their agents first.
   */
  async destroy(): Promise<void> {
    const names = [...this.hosts.map((h) => h.netns), this.bridge];
    const existing = new Set(await listNamespaces());
    const failures: string[] = [];
    for (const name of names) {
      if (!existing.has(name)) {
        created.delete(name);
        continue;
      }
      try {
        await run(IP, ['netns', 'delete', name]);
        created.delete(name);
      } catch (error) {
        failures.push(error instanceof Error ? error.message : String(error));
      }
    }
    if (failures.length > 0) throw new Error(`namespaces not removed:\n${failures.join('\n')}`);
  }
}

/** Counts between two readings of {@link LossNetwork.counts}, per namespace, and their total. */
export function countsBetween(
  before: readonly LossCount[],
  after: readonly LossCount[],
): { readonly each: LossCount[]; readonly seen: number; readonly dropped: number } {
  const each = after.map((a, i) => ({
    netns: a.netns,
    seen: a.seen - (before[i]?.seen ?? 0),
    dropped: a.dropped - (before[i]?.dropped ?? 0),
  }));
  return {
    each,
    seen: each.reduce((s, c) => s + c.seen, 0),
    dropped: each.reduce((s, c) => s + c.dropped, 0),
  };
}
