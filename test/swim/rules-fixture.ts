/** Membership rules over a fake port, on the harness of `swim-context.ts`, with what they told the port. */
import { isMemberEvent } from '../../src/swim/events.js';
import type { MemberList, SuspectUpdate } from '../../src/swim/messages.js';
import { Reporter } from '../../src/swim/reporter.js';
import { MembershipRules, type RulesPort } from '../../src/swim/rules.js';
import { SelfState } from '../../src/swim/self.js';
import { addressOf, type harness } from './swim-context.js';

export function rules(h: ReturnType<typeof harness>, port: Partial<RulesPort> = {}, refusesJoin = true) {
  const suspected: SuspectUpdate[] = [];
  const calls = { addressChanged: 0 };
  const conflicts: string[] = [];
  const full: RulesPort = {
    takeSuspicion: () => undefined,
    suspect: (s) => suspected.push(s),
    ceilingOf: () => -1,
    pruneTombstones: () => {},
    addressChanged: () => calls.addressChanged++,
    conflicts: {
      claimed: (id, a) => conflicts.push(`claimed ${h.ctx.view.directory.nameOf(id)} ${a.address}`),
      seen: (name, held, other) => conflicts.push(`seen ${name} ${held} ${other}`),
      claimedSelf: (other) => conflicts.push(`self ${other}`),
      refusesJoin,
    },
    ...port,
  };
  const reporter = new Reporter(
    h.ctx,
    (e) => h.events.push(e),
    () => {},
  );
  const self = new SelfState(h.ctx, reporter, 1, new Uint8Array(0));
  return { rules: new MembershipRules(h.ctx, self, reporter, full), suspected, self, calls, conflicts };
}

export function list(entries: Array<[string, number, number]>): MemberList {
  return {
    names: entries.map(([n]) => n),
    addresses: entries.map(([n]) => addressOf(n)),
    incarnations: Uint32Array.from(entries.map(([, i]) => i)),
    states: Uint8Array.from(entries.map(([, , s]) => s)),
    metas: entries.map(() => new Uint8Array(0)),
  };
}

export const NO_META = new Uint8Array(0);
export const aliveOf = (
  name: string,
  incarnation: number,
  extra: { address?: string; meta?: Uint8Array } = {},
) =>
  ({
    kind: 'alive',
    name,
    address: extra.address ?? addressOf(name),
    incarnation,
    meta: extra.meta ?? NO_META,
  }) as const;

export function memberEvents(h: ReturnType<typeof harness>): string[] {
  return h.events.flatMap((e) => (!isMemberEvent(e) ? [] : [`${e.type} ${e.member} ${e.cause}`]));
}
