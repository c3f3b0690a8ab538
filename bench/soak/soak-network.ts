/**
 * The soak's namespaces: one per member on a bridge, 5 % loss on each, as examples/support/netns.ts lays
 * them out, under the soak's own prefix `fdkit-soak-<pid>` so that no other run's cleanup (which removes
 * `fdkit-loss-*` namespaces of dead pids) touches them, nor theirs ours. netns.ts hard-codes its prefix;
 * this wrapper builds on its exported pieces (`runIn` for bounded commands, `nft`, `listNamespaces`, the
 * prerequisites) until it takes a prefix, and should then become a call to it.
 */
import { spawnSync } from 'node:child_process';
import {
  listNamespaces,
  type NetnsHost,
  nft,
  requirePrerequisites,
  runIn,
} from '../../examples/support/netns.js';

/** Names of the soak's namespaces start with this, then `-<pid>-`. */
export const SOAK_PREFIX = 'fdkit-soak';

const TABLE = 'fdkit_soak';

/** `ip` itself, as a "host" whose exec prefix is the bare command: `runIn` then runs `ip ARGS`, bounded. */
const IP: NetnsHost = { netns: '', exec: ['ip'], ip: '' };

function ip(args: readonly string[]): ReturnType<typeof runIn> {
  return runIn(IP, args);
}

/** Drop `percent` % of the IPv4 packets arriving on eth0: one input hook per hop, as netns.ts reasons. */
function lossScript(percent: number): string {
  return (
    `table ip ${TABLE} {\n  chain input {\n    type filter hook input priority 0; policy accept;\n  }\n}\n` +
    `flush chain ip ${TABLE} input\n` +
    (percent > 0 ? `add rule ip ${TABLE} input iifname "eth0" numgen random mod 100 < ${percent} drop\n` : '')
  );
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** A bridge and one namespace per member. */
export class SoakNetwork {
  private readonly created: string[] = [];
  readonly hosts: NetnsHost[] = [];

  /** Creates `count` hosts with `lossPercent` loss, after removing what a crashed soak left behind. */
  static async create(count: number, lossPercent: number): Promise<SoakNetwork> {
    await requirePrerequisites();
    await removeStaleSoakNamespaces();
    const network = new SoakNetwork();
    const exitHook = (): void => {
      for (const name of network.created) spawnSync('ip', ['netns', 'delete', name], { timeout: 10_000 });
    };
    process.once('exit', exitHook);
    try {
      await network.build(count, lossPercent);
    } catch (error) {
      await network.destroy();
      throw error;
    }
    return network;
  }

  private async add(name: string): Promise<void> {
    await ip(['netns', 'add', name]);
    this.created.push(name);
    await ip(['-n', name, 'link', 'set', 'lo', 'up']);
  }

  private async build(count: number, lossPercent: number): Promise<void> {
    const pid = process.pid;
    const prefix = `${SOAK_PREFIX}-${pid}`;
    const subnet = `10.${(pid >> 8) & 0xff}.${pid & 0xff}`;
    const bridge = `${prefix}-br`;
    await this.add(bridge);
    await ip(['-n', bridge, 'link', 'add', 'br0', 'type', 'bridge']);
    await ip(['-n', bridge, 'link', 'set', 'br0', 'up']);
    for (let k = 0; k < count; k++) {
      const host: NetnsHost = {
        netns: `${prefix}-h${k}`,
        exec: ['ip', 'netns', 'exec', `${prefix}-h${k}`],
        ip: `${subnet}.${k + 1}`,
      };
      await this.add(host.netns);
      await ip([
        '-n',
        bridge,
        'link',
        'add',
        `p${k}`,
        'type',
        'veth',
        'peer',
        'name',
        'eth0',
        'netns',
        host.netns,
      ]);
      await ip(['-n', bridge, 'link', 'set', `p${k}`, 'master', 'br0']);
      await ip(['-n', bridge, 'link', 'set', `p${k}`, 'up']);
      await ip(['-n', host.netns, 'addr', 'add', `${host.ip}/24`, 'dev', 'eth0']);
      await ip(['-n', host.netns, 'link', 'set', 'eth0', 'up']);
      await nft(host, ['-f', '-'], lossScript(lossPercent));
      this.hosts.push(host);
    }
  }

  /** Deletes every namespace created; the agents in them must be killed first. */
  async destroy(): Promise<void> {
    const existing = new Set(await listNamespaces());
    for (const name of this.created.splice(0).reverse()) {
      if (existing.has(name)) await ip(['netns', 'delete', name]);
    }
  }
}

/** Removes `fdkit-soak-<pid>-*` namespaces whose pid is gone, killing what still runs in them. */
async function removeStaleSoakNamespaces(): Promise<void> {
  const pattern = new RegExp(`^${SOAK_PREFIX}-(\\d+)-`);
  for (const name of await listNamespaces()) {
    const pid = Number(pattern.exec(name)?.[1] ?? Number.NaN);
    if (!Number.isSafeInteger(pid) || pid === process.pid || pidAlive(pid)) continue;
    const { stdout } = await ip(['netns', 'pids', name]);
    for (const p of stdout.split(/\s+/).filter((x) => x !== '')) {
      try {
        process.kill(Number(p), 'SIGKILL');
      } catch {
        // Ended meanwhile.
      }
    }
    await ip(['netns', 'delete', name]);
  }
}
