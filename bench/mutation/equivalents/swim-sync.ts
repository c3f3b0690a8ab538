/** Equivalent mutants of src/swim/ (one group of its files, so that each can be worked on apart): see ../equivalents.ts. */
import type { Equivalent } from '../equivalent.js';

/**
 * Why the bounds of `StateSync.sendState`'s loop over the directory can be loosened (the reason of several
 * lines below): `count` is `table.known`, the number of ids whose state is not UNKNOWN (MemberTable keeps
 * one count per state, raised and lowered by every `set` and `forget`), and every such id is below
 * `directory.size`, since the table is only ever written at ids the directory handed out. So the loop
 * fills exactly `count` entries whichever of its two bounds stops it: once `i` reaches `count` every id
 * left below the size is UNKNOWN and skipped, and `i` never exceeds `count`. `id < directory.size` and
 * `i < count` each stop it at the same entries filled, and the one extra turn of `<=` finds `i` at
 * `count` (or the id at the size, whose state is UNKNOWN: ViewStorage pages are filled with UNKNOWN, and
 * past the last page `state` returns UNKNOWN).
 */
const SEND_STATE_BOUNDS =
  'the same entries filled: table.known counts exactly the ids below directory.size that are not UNKNOWN (see SEND_STATE_BOUNDS in bench/mutation/equivalents/swim-sync.ts)';

export const SWIM_SYNC: readonly Equivalent[] = [
  // src/swim/state-sync.ts
  {
    file: 'src/swim/state-sync.ts',
    mutator: 'ArrayDeclaration',
    original: '[]',
    line: 63,
    why:
      '`scratch` is only an out-array: `randomMembers` sets `out.length = 0` before filling it (probe-order.ts), ' +
      'and reconnectTick sets `candidates.length = 0` before pushing; its first contents are never read.',
  },
  ...[183, 184, 187].map(
    (line): Equivalent => ({
      file: 'src/swim/state-sync.ts',
      mutator: 'ArrayDeclaration',
      original: 'new Array(count)',
      line,
      why:
        'Preallocation only: the loop assigns indexes 0 .. count − 1 in order, each once (see SEND_STATE_BOUNDS), so ' +
        'the array ends with the same `count` elements and length whether it started empty or with `count` holes.',
    }),
  ),
  {
    file: 'src/swim/state-sync.ts',
    mutator: 'LogicalOperator',
    original: 'id < directory.size && i < count',
    why: `Either bound alone stops the loop with ${SEND_STATE_BOUNDS}.`,
  },
  {
    file: 'src/swim/state-sync.ts',
    mutator: 'ConditionalExpression',
    original: 'id < directory.size',
    why: `\`i < count\` alone stops the loop with ${SEND_STATE_BOUNDS}.`,
  },
  {
    file: 'src/swim/state-sync.ts',
    mutator: 'EqualityOperator',
    original: 'id < directory.size',
    why: `The extra turn at id = size finds i = count and stops; ${SEND_STATE_BOUNDS}.`,
  },
  {
    file: 'src/swim/state-sync.ts',
    mutator: 'ConditionalExpression',
    original: 'i < count',
    why: `\`id < directory.size\` alone stops the loop with ${SEND_STATE_BOUNDS}; the ids it then visits are UNKNOWN.`,
  },
  {
    file: 'src/swim/state-sync.ts',
    mutator: 'EqualityOperator',
    original: 'i < count',
    why: `At i = count the remaining ids are UNKNOWN and skipped until id reaches the size; ${SEND_STATE_BOUNDS}.`,
  },

  // src/swim/core.ts
  {
    file: 'src/swim/core.ts',
    mutator: 'StringLiteral',
    original: "'stopped'",
    why:
      'The phase is only compared with `created` (start, requireRunning) and with `running` and `leaving` ' +
      '(Lifecycle.isRunning), and is not exposed: an empty phase after stop() is neither, exactly as `stopped`.',
  },
  {
    file: 'src/swim/core.ts',
    mutator: 'ArrayDeclaration',
    original: '[]',
    line: 331,
    why:
      'packetBaseBytes of a gossip packet reads only its `from` (message-size.ts: envelope + strBytes(from)); ' +
      'the updates of that probe packet, built only to be measured, are never read.',
  },
  {
    file: 'src/swim/core.ts',
    mutator: 'EqualityOperator',
    original: 'id < directory.size',
    why:
      'The one extra turn reads the state of id = directory.size, which no table entry holds (the table is ' +
      'written only at ids the directory handed out): ViewStorage.state gives UNKNOWN (pages are filled with ' +
      'UNKNOWN, and past the last page it returns UNKNOWN), and the entry is skipped.',
  },
  {
    file: 'src/swim/core.ts',
    mutator: 'ConditionalExpression',
    original: 'state === UNKNOWN',
    line: 382,
    why:
      'stateName(UNKNOWN) is NAMES[255], undefined (member-state.ts), which is what the guard returns for an ' +
      'unknown member.',
  },
  {
    file: 'src/swim/core.ts',
    mutator: 'ConditionalExpression',
    original: "case 'gossip':\n        return;",
    why: 'The last case of the switch: falling through it reaches the end of handlePacket, as the return does.',
  },
  {
    file: 'src/swim/core.ts',
    mutator: 'StringLiteral',
    original: "'gossip'",
    line: 419,
    why:
      'A gossip packet then matches no case, and the switch, the last statement of handlePacket, does nothing ' +
      'for it, as the gossip case does (its updates were applied before the switch).',
  },

  // src/swim/core-types.ts

  // src/swim/directory.ts
  ...[17, 19].map(
    (line): Equivalent => ({
      file: 'src/swim/directory.ts',
      mutator: 'ArrayDeclaration',
      original: '[]',
      line,
      why:
        'Ids come from `names.length`, and `intern` writes addresses[id] and entrySizes[id] through setAddress ' +
        'right after its push: a first element would only shift the pushed copy one slot to the right, past ' +
        'every id handed out, and addressOf and nameAndAddressBytes read only ids below the size.',
    }),
  ),
  {
    file: 'src/swim/directory.ts',
    mutator: 'ConditionalExpression',
    original: 'name === undefined',
    why:
      'For an id never handed out, `ids.get(undefined)` is undefined, never the number `id`, so the second ' +
      'test returns as the first does; the first is there for the type checker.',
  },
];
