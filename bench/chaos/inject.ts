/**
 * The chaos bench's fault injector: carries out one fault of the schedule (bench/chaos/schedule.ts) on
 * the cluster, for its duration, and says when it really began and ended (the nft and signal calls take
 * a few ms, a leave up to a few seconds). Partitions are nftables drops in the receivers' namespaces
 * (examples/support/partition.ts), loss the loss table of every namespace (examples/support/netns.ts).
 */
import { sleep } from '../support/report.js';
import type { ChaosCluster } from './cluster.js';
import type { Fault } from './schedule.js';

/** When a fault's effect really started and was lifted, in the cluster's run time. */
export interface FaultRecord {
  readonly fault: Fault;
  readonly startedMs: number;
  readonly endedMs: number;
}

/** Carries out `fault` on `cluster`: starts it, waits its duration, lifts it. */
export async function runFault(cluster: ChaosCluster, fault: Fault): Promise<FaultRecord> {
  const i = fault.members[0] ?? -1;
  const startedMs = cluster.now();
  switch (fault.kind) {
    case 'halves':
    case 'isolate':
      await cluster.partition.cut(fault.members, fault.others);
      break;
    case 'one-way':
      await cluster.partition.cutOneWay(fault.members, fault.others);
      break;
    case 'loss':
      await cluster.network.setLoss(fault.lossPercent);
      break;
    case 'pause':
      cluster.pause(i);
      break;
    case 'kill':
      await cluster.kill(i);
      break;
    case 'leave':
      await cluster.leave(i);
      break;
  }
  await sleep(Math.max(0, startedMs + fault.durationMs - cluster.now()));
  const endedMs = cluster.now();
  switch (fault.kind) {
    case 'halves':
    case 'isolate':
    case 'one-way':
      await cluster.partition.heal();
      break;
    case 'loss':
      await cluster.network.setLoss(0);
      break;
    case 'pause':
      cluster.resume(i);
      break;
    case 'kill':
    case 'leave':
      await cluster.restart(i);
      break;
  }
  return { fault, startedMs, endedMs };
}
