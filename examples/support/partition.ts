/**
 * A network partition between two groups of the host namespaces of a {@link LossNetwork}
 * (examples/support/netns.ts): in every host of each side, an nftables rule drops every IPv4 packet
 * that arrives from an address of the other side, UDP and TCP alike. Each packet from one side to the
 * other crosses exactly one input hook, the receiver's, so dropping there cuts both directions; dropping
 * on output as well would only turn the silence of a cut into `EPERM` from `send`, which a real cut does
 * not give. Hosts on neither side (a lock service both sides must reach) keep every link. ARP is not IP
 * and passes: the cut is in the routing, as when a switch between racks fails, not in the wires.
 *
 * The rules sit in a table of their own (`fdkit_partition`), ahead of the loss table, and healing
 * flushes its chain in one transaction, as the loss rate is changed; its `cut` counter keeps counting
 * across cuts, so a caller can show that packets were really dropped.
 */
import { type LossNetwork, type NetnsHost, nft } from './netns.js';

const TABLE = 'fdkit_partition';

/** `nft` script for one host's partition table: drop what arrives from `blocked`; nothing when empty. */
function cutScript(blocked: readonly string[]): string {
  return (
    `table ip ${TABLE} {\n` +
    '  counter cut {}\n' +
    '  chain input {\n' +
    // Before the loss table (priority 0): a packet the cut drops is not counted as seen by the loss rule.
    '    type filter hook input priority -10; policy accept;\n' +
    '  }\n' +
    '}\n' +
    `flush chain ip ${TABLE} input\n` +
    (blocked.length > 0
      ? `add rule ip ${TABLE} input iifname "eth0" ip saddr { ${blocked.join(', ')} } counter name cut drop\n`
      : '')
  );
}

/** The shape of `nft -j list counter` that is read here. */
interface NftCounterJson {
  readonly nftables: readonly { readonly counter?: { readonly packets: number } }[];
}

/** Cuts and heals the links between two sides of a network's hosts. */
export class Partition {
  private readonly network: LossNetwork;

  constructor(network: LossNetwork) {
    this.network = network;
  }

  /**
   * Drops every packet between `sideA` and `sideB` (host indices of the network), both directions, until
   * {@link Partition.heal}. Resolves once every host's rule is in place. A host in both sides is a
   * caller's mistake, and throws before any rule changes.
   */
  async cut(sideA: readonly number[], sideB: readonly number[]): Promise<void> {
    const a = sideA.map((i) => this.host(i));
    const b = sideB.map((i) => this.host(i));
    const overlap = a.filter((h) => b.includes(h));
    if (overlap.length > 0) {
      throw new Error(`Partition.cut: ${overlap.map((h) => h.netns).join(', ')} on both sides`);
    }
    const ips = (hosts: readonly NetnsHost[]): string[] => hosts.map((h) => h.ip);
    await Promise.all([
      ...a.map((h) => nft(h, ['-f', '-'], cutScript(ips(b)))),
      ...b.map((h) => nft(h, ['-f', '-'], cutScript(ips(a)))),
    ]);
  }

  /**
   * Drops every packet from `senders` to `receivers` (host indices), and nothing the other way: an
   * asymmetric link, where a receiver's probes still reach a sender but the acks never come back. Only
   * the receivers' rules change. Resolves once they are in place.
   */
  async cutOneWay(senders: readonly number[], receivers: readonly number[]): Promise<void> {
    const from = senders.map((i) => this.host(i));
    const to = receivers.map((i) => this.host(i));
    if (from.some((h) => to.includes(h)))
      throw new Error('Partition.cutOneWay: a host both sends and receives');
    await Promise.all(to.map((h) => nft(h, ['-f', '-'], cutScript(from.map((s) => s.ip)))));
  }

  /** Lifts the cut on every host: each link carries packets again. */
  async heal(): Promise<void> {
    await Promise.all(this.network.hosts.map((h) => nft(h, ['-f', '-'], cutScript([]))));
  }

  /**
   * Packets the cut has dropped so far at each host, in host order (0 for a host never on a side). They
   * only grow.
   */
  async dropped(): Promise<number[]> {
    return Promise.all(
      this.network.hosts.map(async (h) => {
        // The table exists only on hosts that were on a side, or healed.
        const tables = await nft(h, ['list', 'tables']);
        if (!tables.stdout.includes(`table ip ${TABLE}`)) return 0;
        const { stdout } = await nft(h, ['-j', 'list', 'counter', 'ip', TABLE, 'cut']);
        const counter = (JSON.parse(stdout) as NftCounterJson).nftables.find((x) => x.counter)?.counter;
        if (counter === undefined) throw new Error(`${h.netns}: no cut counter in ${stdout}`);
        return counter.packets;
      }),
    );
  }

  private host(index: number): NetnsHost {
    const host = this.network.hosts[index];
    if (host === undefined) {
      throw new Error(`Partition: no host ${index} (the network has ${this.network.hosts.length})`);
    }
    return host;
  }
}
