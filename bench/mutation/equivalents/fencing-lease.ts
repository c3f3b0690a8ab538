/** Equivalent mutants of src/fencing/*.ts (the leases and tokens): see ../equivalents.ts. */
import type { Equivalent } from '../equivalent.js';

/** An AbortSignal dispatches `abort` at most once, so a listener on it runs at most once either way. */
const ABORT_ONCE =
  'an AbortSignal aborts at most once (AbortController.abort on an aborted signal returns without ' +
  "dispatching), so its 'abort' listeners run at most once whether or not they are added with once: true";

/**
 * Node's Buffer.from(string, encoding) and Hash.update(string, encoding) take an empty encoding name as
 * the default, utf8 (lib/buffer.js: `encoding.length === 0` picks utf8; crypto normalizes it the same).
 */
const EMPTY_ENCODING =
  "Node takes an empty encoding name as its default, 'utf8' (Buffer.from: `typeof encoding !== 'string' " +
  "|| encoding.length === 0` selects utf8; Hash.update normalizes '' to utf8 too)";

export const FENCING_LEASE: readonly Equivalent[] = [
  {
    file: 'src/fencing/etcd-lease-settings.ts',
    mutator: 'ArrayDeclaration',
    original: '[]',
    replacement: '["Stryker was here"]',
    why:
      'The list for hosts that are neither a string nor an array is only checked, then thrown away: [] ' +
      'fails `list.length === 0`, ["Stryker was here"] fails the URL test (no http:// or https://), and ' +
      'both throw the same InvalidOptionError; nothing else reads the list on that path.',
  },
  {
    file: 'src/fencing/etcd-leases.ts',
    mutator: 'OptionalChaining',
    original: 'txn.responses[0]?.response_range',
    why:
      "This line runs only when the transaction's `Create == 0` compare failed, so etcd ran its else branch, " +
      'the one get(key): a transaction answers one response per op of the branch it ran (etcd v3 TxnResponse), ' +
      'so responses[0] is always that range response.',
  },
  {
    file: 'src/fencing/etcd-leases.ts',
    mutator: 'OptionalChaining',
    original: 'holder?.value',
    why:
      'holder is kvs[0] of the get in the same transaction whose compare found the key created ' +
      '(createRevision != 0): an etcd transaction is atomic at one revision, so that get returns the key, ' +
      'and kvs[0] is never undefined.',
  },
  {
    file: 'src/fencing/etcd-leases.ts',
    mutator: 'ObjectLiteral',
    original: '{ once: true }',
    why: `On the signal of an acquire: ${ABORT_ONCE}, and the finally removes the listener in every case.`,
  },
  {
    file: 'src/fencing/etcd-leases.ts',
    mutator: 'BooleanLiteral',
    original: 'true',
    line: 209,
    why: `On the signal of an acquire: ${ABORT_ONCE}, and the finally removes the listener in every case.`,
  },
  {
    file: 'src/fencing/etcd-leases.ts',
    mutator: 'ConditionalExpression',
    original: 'onAbort !== undefined',
    replacement: 'true',
    why:
      'onAbort is undefined in the finally only when building the watcher threw before it was assigned; ' +
      'removeEventListener with an undefined listener does nothing (the DOM spec: a null callback returns), ' +
      'so calling it anyway changes nothing.',
  },
  {
    file: 'src/fencing/fencing-guard.ts',
    mutator: 'ConditionalExpression',
    original: 'highest !== undefined',
    replacement: 'true',
    why:
      'With no highest token the mutant evaluates `token < undefined`, which is false for every bigint ' +
      '(undefined converts to NaN, and no comparison with NaN holds), as the original short-circuits to false.',
  },
  {
    file: 'src/fencing/idempotency-key.ts',
    mutator: 'StringLiteral',
    original: "'utf8'",
    why: `${EMPTY_ENCODING}, so the same bytes are hashed.`,
  },
  {
    file: 'src/fencing/idempotency-key.ts',
    mutator: 'StringLiteral',
    original: "'ascii'",
    why:
      `${EMPTY_ENCODING}, and the text is a decimal integer (digits and a minus sign), whose ASCII and ` +
      'UTF-8 bytes are the same.',
  },
  {
    file: 'src/fencing/idempotency-key.ts',
    mutator: 'ConditionalExpression',
    original: "typeof part === 'number'",
    replacement: 'true',
    line: 25,
    why:
      'Number.isSafeInteger(part) is false for anything that is not a number, so the condition is the same ' +
      'without the typeof test.',
  },
  {
    file: 'src/fencing/lease-deadline.ts',
    mutator: 'ConditionalExpression',
    original: '!this.controller.signal.aborted',
    replacement: 'true',
    why: `${ABORT_ONCE}; and an abort of an aborted controller keeps the first reason, so the first reason still wins.`,
  },
  {
    file: 'src/fencing/lease-deadline.ts',
    mutator: 'ConditionalExpression',
    original: 'this.controller.signal.aborted',
    replacement: 'false',
    why:
      'Once aborted, the deadline has no timer (end() clears it, and arm() only runs while not aborted), so ' +
      'going on calls end() again at most: its timer?.cancel() finds none and its abort is skipped; the new ' +
      'LeaseError is dropped unseen.',
  },
  {
    file: 'src/fencing/lease-state.ts',
    mutator: 'ObjectLiteral',
    original: '{ once: true }',
    why: `On the deadline's signal: ${ABORT_ONCE}.`,
  },
  {
    file: 'src/fencing/lease-state.ts',
    mutator: 'BooleanLiteral',
    original: 'true',
    line: 58,
    why: `On the deadline's signal: ${ABORT_ONCE}.`,
  },
  {
    file: 'src/fencing/lease-state.ts',
    mutator: 'StringLiteral',
    original: "'lost'",
    line: 115,
    why:
      "announced is read only by the state getter, after `if (this.deadline.ended()) return 'lost'`; ended() " +
      'runs once the deadline has aborted, and an aborted deadline stays ended, so what announced says ' +
      'afterwards is never read.',
  },
  {
    file: 'src/fencing/etcd-lease.ts',
    mutator: 'ArrayDeclaration',
    original: '[]',
    replacement: '["Stryker was here"]',
    line: 80,
    why: "The initial unanswered: openStream sets `this.unanswered = []` when a stream opens, before it adds the stream's data listener (the only reader, through answered()); until then this.stream is undefined and sendKeepAlive returns before it pushes, so the value this sets is never read.",
  },
  {
    file: 'src/fencing/etcd-lease.ts',
    mutator: 'ArrayDeclaration',
    original: '[]',
    replacement: '["Stryker was here"]',
    line: 263,
    why: "unanswered after a broken stream (this.stream is set to undefined just before): openStream sets `this.unanswered = []` when a stream opens, before it adds the stream's data listener (the only reader, through answered()); until then this.stream is undefined and sendKeepAlive returns before it pushes, so the value this sets is never read.",
  },
  {
    file: 'src/fencing/etcd-lease.ts',
    mutator: 'ObjectLiteral',
    original: '{ once: true }',
    why: `On the tracker's signal: ${ABORT_ONCE}.`,
  },
  {
    file: 'src/fencing/etcd-lease.ts',
    mutator: 'BooleanLiteral',
    original: 'true',
    line: 96,
    why: `On the tracker's signal: ${ABORT_ONCE}.`,
  },
  {
    file: 'src/fencing/etcd-lease.ts',
    mutator: 'OptionalChaining',
    original: 'this.keepAliveTimer?.cancel',
    why:
      'shutDown runs only from the abort of the tracker signal, and the constructor sets keepAliveTimer ' +
      '(scheduleKeepAlive) synchronously before anything can abort it: the deadline aborts from a timer ' +
      'callback, which a Clock runs later, or from end(), which only release, a keep-alive answer and the ' +
      "watch call, all after the constructor; leaseKeepAlive's answer is handled in a promise callback.",
  },
  {
    file: 'src/fencing/etcd-lease.ts',
    mutator: 'ConditionalExpression',
    original: 'stream !== undefined',
    replacement: 'true',
    why:
      'The condition is `stream !== undefined && stream !== this.stream`; the mutant drops the first part, ' +
      'which differs only for stream undefined (an open that failed) while this.stream is defined. That never ' +
      'happens: openStream is called only while this.stream is undefined (by the constructor, and by the ' +
      'reopen timer that streamFailed sets after clearing it), at most one open is in flight (the next is ' +
      'set only by a failure, and none can come while there is no stream: sendKeepAlive returns early), so ' +
      'a failed open always finds this.stream undefined, and both forms go on.',
  },
];
