/**
 * The kernel's count of UDP datagrams it dropped on arrival because a socket's receive buffer was full
 * (`RcvbufErrors` in /proc/net/snmp): machine-wide, so other traffic can add to it, but it tells a
 * datagram the fuzzer sent and the member never saw from one the member dropped.
 */
import { readFileSync } from 'node:fs';

export function udpReceiveBufferErrors(): number {
  try {
    const lines = readFileSync('/proc/net/snmp', 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('Udp:'));
    const names = lines[0]?.split(/\s+/) ?? [];
    const values = lines[1]?.split(/\s+/) ?? [];
    const at = names.indexOf('RcvbufErrors');
    return at < 0 ? 0 : Number(values[at]);
  } catch {
    return 0;
  }
}
