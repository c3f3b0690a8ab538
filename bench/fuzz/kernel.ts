/**
 * The kernel's count of datagrams it dropped on arrival at the members' sockets (a full receive buffer),
 * from the `drops` column of /proc/net/udp: per socket, so that other traffic on the machine does not
 * count, and it tells a datagram the fuzzer sent and a member never saw from one the member dropped.
 */
import { readFileSync } from 'node:fs';

/** Drops of the UDP sockets bound to any of `ports` (any address); 0 where /proc is not Linux's. */
export function udpSocketDrops(ports: readonly number[]): number {
  let text: string;
  try {
    text = readFileSync('/proc/net/udp', 'utf8');
  } catch {
    return 0;
  }
  let drops = 0;
  for (const line of text.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    const local = fields[1];
    if (local === undefined || fields.length < 13) continue;
    const port = Number.parseInt(local.slice(local.indexOf(':') + 1), 16);
    if (ports.includes(port)) drops += Number(fields[fields.length - 1]);
  }
  return drops;
}
