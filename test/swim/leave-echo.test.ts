/**
 * The echoes of a leave alone (src/swim/leave-echo.ts): a packet counts when it carries this member's
 * own leave of this life back, and nothing else does.
 */
import { describe, expect, it } from 'vitest';
import { LeaveEcho } from '../../src/swim/leave-echo.js';
import type { Packet, Update } from '../../src/swim/messages.js';

const gossip = (from: string, ...updates: Update[]): Packet => ({ type: 'gossip', from, updates });
const leave = (name = 'self', incarnation = 7, from = name): Update => ({
  kind: 'dead',
  name,
  incarnation,
  from,
});

describe('LeaveEcho', () => {
  it('notes the sender of a packet that carries the leave back, among other updates', () => {
    const echo = new LeaveEcho('self', 7);
    expect([...echo.heardFrom]).toEqual([]);
    echo.heard(gossip('a', leave('x', 3), leave()));
    echo.heard({ type: 'ping', seq: 1, from: 'b', target: 'self', updates: [leave()] });
    echo.heard(gossip('a', leave()));
    expect([...echo.heardFrom]).toEqual(['a', 'b']);
  });

  it('does not count a death declared by another, another life, another member, or no leave at all', () => {
    const echo = new LeaveEcho('self', 7);
    echo.heard(gossip('a', leave('self', 7, 'a')));
    echo.heard(gossip('b', leave('self', 6)));
    echo.heard(gossip('c', leave('self', 8)));
    echo.heard(gossip('d', leave('other', 7)));
    echo.heard(gossip('g', leave('other', 7, 'self'))); // a death this member declared of another
    echo.heard(gossip('e', { kind: 'suspect', name: 'self', incarnation: 7, from: 'self' }));
    echo.heard(gossip('f'));
    expect([...echo.heardFrom]).toEqual([]);
  });
});
