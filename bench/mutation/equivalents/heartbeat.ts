/** The equivalent mutants of src/heartbeat/: see ../equivalents.ts. */
import type { Equivalent } from '../equivalent.js';

/**
 * Why reviewing a peer once more than the original does changes nothing (the reason of several lines
 * below): `PeerJudge.review` derives the state and the next moment from the peer's evidence alone (its
 * last beat, when its suspicion began, the health score for a suspect, the freeze guard's wake). On
 * evidence unchanged since its last review it can suspect or convict only a peer whose own timer is
 * already due, and that timer runs in the same turn of the clock (due timers run in order, before any
 * datagram is handled) to the same effect; and it re-arms for a moment no earlier than the timer it
 * finds, which `arm` leaves alone. Under a holding guard it also defers one review to the release,
 * which again finds the evidence unchanged or the peer reviewed anyway.
 */
const EXTRA_REVIEW =
  'an extra review on unchanged evidence, which is a no-op (see EXTRA_REVIEW in bench/mutation/equivalents/heartbeat.ts)';

export const HEARTBEAT: readonly Equivalent[] = [
  {
    file: 'src/heartbeat/heartbeat-core.ts',
    mutator: 'ConditionalExpression',
    original: 'name !== undefined',
    replacement: 'true',
    line: 231,
    why:
      'byName.has(undefined) is false: byName is keyed by given names (set only when defined, line 247) ' +
      'and by the `from` of heartbeats, a string by the Heartbeat type and the decoder.',
  },
  {
    file: 'src/heartbeat/heartbeat-core.ts',
    mutator: 'ConditionalExpression',
    original: 'name !== undefined',
    replacement: 'true',
    line: 247,
    why:
      'An address-only peer is also stored under the key undefined, which no lookup uses: byName.get ' +
      'takes a heartbeat `from` or a removePeer key, strings by their types, and byName.has runs only ' +
      'for a defined name.',
  },
  {
    file: 'src/heartbeat/heartbeat-core.ts',
    mutator: 'ConditionalExpression',
    original: 'peer.named',
    replacement: 'true',
    line: 258,
    why:
      'An unnamed peer is called by its address, and removePeer reaches it only through byAddress.get(key) ' +
      'after byName.get(key) found nothing, with key === its address === its name: deleting that name ' +
      'from byName deletes nothing.',
  },
  {
    file: 'src/heartbeat/heartbeat-core.ts',
    mutator: 'EqualityOperator',
    original: 'this.awareness.score < score',
    replacement: 'this.awareness.score <= score',
    why:
      'It also reviews the suspects at a beat that left the score unchanged (on time at score 0, or late ' +
      `at the maximum), whose timeouts did not change: ${EXTRA_REVIEW}.`,
  },
  {
    file: 'src/heartbeat/heartbeat-core.ts',
    mutator: 'ConditionalExpression',
    original: 'peer.state === SUSPECT',
    replacement: 'true',
    why:
      'When the score drops it also reviews the alive, unknown and dead peers: a dead one returns at once, ' +
      `and the review of the others does not read the score, so theirs is ${EXTRA_REVIEW}.`,
  },
  {
    file: 'src/heartbeat/judge.ts',
    mutator: 'ConditionalExpression',
    original: 'peer.reviewDeferred',
    replacement: 'false',
    line: 104,
    why:
      'A peer reviewed several times while the guard holds gets several deferred reviews instead of one; ' +
      'they all run in the loop that releases the guard, and each after the first is ' +
      `${EXTRA_REVIEW}. Only the guard's list grows.`,
  },
  {
    file: 'src/heartbeat/judge.ts',
    mutator: 'BooleanLiteral',
    original: 'true',
    replacement: 'false',
    line: 105,
    why:
      'Never marking the review as deferred has the effect of the line above: several deferred reviews, ' +
      `all run at the release, each after the first ${EXTRA_REVIEW}.`,
  },
];
