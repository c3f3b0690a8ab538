/** Member events for the tests of what listens to them: the fields a listener reads, the rest filled in. */
import type { MemberEvent } from '../../src/membership/events.js';

/** A `type` event about `member`, which was `previous` before; `fields` override the fillers. */
export function memberEvent(
  type: MemberEvent['type'],
  member: string,
  previous: MemberEvent['previous'],
  fields: Partial<MemberEvent> = {},
): MemberEvent {
  return {
    type,
    member,
    previous,
    address: '10.0.0.1:7946',
    incarnation: 1,
    atMs: 0,
    wallMs: 0,
    cause: 'joined',
    confirmations: 0,
    localHealth: 0,
    ...fields,
  };
}
