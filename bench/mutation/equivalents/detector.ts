/** The equivalent mutants of src/detector/: see ../equivalents.ts. */
import type { Equivalent } from '../equivalent.js';

/**
 * HeartbeatClock's inline tests (src/detector/timestamp.ts), on the heartbeat path and on the query and
 * clock-reading paths, only decide whether to call the full check, which throws exactly for what the
 * inline test lets through to it (not a number, a time beyond ±(2^53 − 1), NaN, or a heartbeat earlier
 * than the last) and returns for everything else. Calling it for more inputs, or for the boundaries
 * (now === last, |now| === 2^53 − 1), costs a call and changes nothing.
 */
const FAST_PATH =
  'the inline test only chooses whether to call the full timestamp check, which accepts everything the ' +
  'inline test accepts and throws for the same inputs; calling it for more inputs (or for the boundary ' +
  'now === last / |now| === 2^53 − 1, which it accepts) changes only the cost';

const HEARTBEAT_FAST_PATH = `${FAST_PATH} (checkHeartbeatTimestamp: checkTimestamp, then atMs < lastMs)`;
const QUERY_FAST_PATH = `${FAST_PATH} (checkTimestamp throws iff typeof atMs !== 'number' || !(Math.abs(atMs) <= MAX_TIMESTAMP_MS))`;

/**
 * The phi accrual detector's quiet limit is a shortcut past phi when it records an interval. Under the
 * normal model it is the shifted mean, and only when the threshold is above log10 2: up to the shifted
 * mean y <= 0, e = exp(−y(…)) >= 1 and phi = −log10(1 − 1/(1 + e)) <= −log10(1/2) = log10 2 < threshold
 * (properties.test.ts: "at most log10(2) earlier"). Under the exponential model it is the pause, up to
 * which phi is 0 < threshold. So wherever the shortcut applies, `phiAfter(interval) < threshold` is true.
 */
const QUIET_LIMIT =
  'quietLimitMs only skips computing phi: wherever interval <= quietLimitMs, phiAfter(interval) < threshold ' +
  'holds too (normal: up to the shifted mean phi <= log10 2, and the limit is set only for a threshold above ' +
  'log10 2; exponential: up to the pause phi is 0), so not taking the shortcut records the same intervals';

export const DETECTOR: readonly Equivalent[] = [
  // timestamp.ts: HeartbeatClock's inline tests on the heartbeat, query and clock-reading paths
  {
    file: 'src/detector/timestamp.ts',
    mutator: 'ConditionalExpression',
    original: "!(typeof now === 'number' && now >= this.lastMs && now <= MAX_TIMESTAMP_MS)",
    replacement: 'true',
    why: HEARTBEAT_FAST_PATH,
  },
  {
    file: 'src/detector/timestamp.ts',
    mutator: 'ConditionalExpression',
    original: "typeof now === 'number' && now >= this.lastMs && now <= MAX_TIMESTAMP_MS",
    replacement: 'false',
    why: HEARTBEAT_FAST_PATH,
  },
  {
    file: 'src/detector/timestamp.ts',
    mutator: 'EqualityOperator',
    original: 'now >= this.lastMs',
    replacement: 'now > this.lastMs',
    why: HEARTBEAT_FAST_PATH,
  },
  {
    file: 'src/detector/timestamp.ts',
    mutator: 'EqualityOperator',
    original: 'now <= MAX_TIMESTAMP_MS',
    replacement: 'now < MAX_TIMESTAMP_MS',
    why: HEARTBEAT_FAST_PATH,
  },
  {
    file: 'src/detector/timestamp.ts',
    mutator: 'ConditionalExpression',
    original: "!(typeof atMs === 'number' && Math.abs(atMs) <= MAX_TIMESTAMP_MS)",
    replacement: 'true',
    why: QUERY_FAST_PATH,
  },
  {
    file: 'src/detector/timestamp.ts',
    mutator: 'ConditionalExpression',
    original: "typeof atMs === 'number' && Math.abs(atMs) <= MAX_TIMESTAMP_MS",
    replacement: 'false',
    why: QUERY_FAST_PATH,
  },
  {
    // checkTimestamp's own test (line 39) is not a fast path: the first heartbeat reaches it at 2^53 − 1.
    file: 'src/detector/timestamp.ts',
    mutator: 'EqualityOperator',
    original: 'Math.abs(atMs) <= MAX_TIMESTAMP_MS',
    replacement: 'Math.abs(atMs) < MAX_TIMESTAMP_MS',
    line: 103,
    why: QUERY_FAST_PATH,
  },
  {
    file: 'src/detector/timestamp.ts',
    mutator: 'ConditionalExpression',
    original: "!(typeof now === 'number' && Math.abs(now) <= MAX_TIMESTAMP_MS)",
    replacement: 'true',
    why: QUERY_FAST_PATH,
  },
  {
    file: 'src/detector/timestamp.ts',
    mutator: 'ConditionalExpression',
    original: "typeof now === 'number' && Math.abs(now) <= MAX_TIMESTAMP_MS",
    replacement: 'false',
    why: QUERY_FAST_PATH,
  },
  {
    file: 'src/detector/timestamp.ts',
    mutator: 'EqualityOperator',
    original: 'Math.abs(now) <= MAX_TIMESTAMP_MS',
    replacement: 'Math.abs(now) < MAX_TIMESTAMP_MS',
    why: QUERY_FAST_PATH,
  },
  {
    // On the three inline tests; on checkTimestamp's (line 32) it refuses every number and is killed.
    file: 'src/detector/timestamp.ts',
    mutator: 'StringLiteral',
    original: "'number'",
    why: `${FAST_PATH}; checkTimestamp tests typeof itself`,
  },
  {
    // Both `lastGiven = false`: the field's initialiser (line 70) and reset's (line 112).
    file: 'src/detector/timestamp.ts',
    mutator: 'BooleanLiteral',
    original: 'false',
    replacement: 'true',
    why:
      'lastGiven is read only in read(), as `this.lastGiven && ahead > CLOCK_AHEAD_TOLERANCE_MS` with ahead = ' +
      'this.lastMs − now; both places that set it false also leave lastMs NaN (the initialiser `lastMs = NaN`, ' +
      "reset's `this.lastMs = Number.NaN`), and lastMs stays NaN until heartbeat(), which sets lastGiven with " +
      'it. While lastMs is NaN, ahead is NaN and NaN > tolerance is false, so true there throws no more than false',
  },

  // phi-accrual.ts
  {
    file: 'src/detector/phi-accrual.ts',
    mutator: 'ConditionalExpression',
    original: 'interval <= this.quietLimitMs',
    replacement: 'false',
    why: QUIET_LIMIT,
  },
  {
    file: 'src/detector/phi-accrual.ts',
    mutator: 'EqualityOperator',
    original: 'interval <= this.quietLimitMs',
    replacement: 'interval < this.quietLimitMs',
    why: QUIET_LIMIT,
  },
  {
    file: 'src/detector/phi-accrual.ts',
    mutator: 'ConditionalExpression',
    original: 'this.threshold > LOG10_2',
    replacement: 'false',
    why: `${QUIET_LIMIT}; −Infinity just never takes it`,
  },
  {
    file: 'src/detector/phi-accrual.ts',
    mutator: 'BlockStatement',
    original: '{\n      this.quietLimitMs = this.acceptableHeartbeatPauseMs;\n    }',
    why: `${QUIET_LIMIT}; without it an exponential detector keeps the initial −Infinity and never takes it`,
  },

  // phi.ts
  {
    file: 'src/detector/phi.ts',
    mutator: 'EqualityOperator',
    original: 'timeDiffMs > meanMs',
    replacement: 'timeDiffMs >= meanMs',
    why:
      'the branches differ only at timeDiffMs === meanMs, where y = 0 and e = exp(−0) = 1, and both give ' +
      '−log10(1/2): e / (1 + e) and 1 − 1 / (1 + e) are both exactly 0.5',
  },
  {
    file: 'src/detector/phi.ts',
    mutator: 'ArithmeticOperator',
    original: 'target / LOGISTIC_LINEAR',
    replacement: 'target * LOGISTIC_LINEAR',
    why:
      'NOT strictly equivalent, but no contract tells them apart: Newton then starts at 1.5976·target instead ' +
      'of target/1.5976, both above the root, and descends to the same root to rounding. Against an exact ' +
      'rational bisection of the cubic over 20,000 levels both are the correctly rounded root 75% of the time ' +
      'and one ulp off otherwise; they differ, in the last bit only, on 0.6% of levels. The contract is the ' +
      'root to rounding (phi there may fall short of the level by an ulp, which unavailableAtMs nudges ' +
      'past), so only a test pinning this code’s own output bit for bit could kill it',
  },
  {
    file: 'src/detector/phi.ts',
    mutator: 'EqualityOperator',
    original: 'i < 64',
    replacement: 'i <= 64',
    why:
      'the bound is never reached: Newton starts at most 1.47× above the root (the smaller of the two bounds) ' +
      'and converges quadratically, and a sweep of 1.6 million levels from 1e−323 to Number.MAX_VALUE took ' +
      'at most 8 passes before next < y failed (NaN, for the levels whose 10^level overflows, stops the ' +
      'first pass); a 65th pass never runs',
  },
  {
    file: 'src/detector/phi.ts',
    mutator: 'UpdateOperator',
    original: 'i++',
    replacement: 'i--',
    why:
      'the bound is never reached (see i <= 64: at most 8 passes over 1.6 million levels from 1e−323 to ' +
      'Number.MAX_VALUE), so the loop ends at the same break without it',
  },
  {
    file: 'src/detector/phi.ts',
    mutator: 'EqualityOperator',
    original: 'next < y',
    replacement: 'next <= y',
    why:
      'where next === y the original stops; the mutant sets y to that same value and computes the same next ' +
      'again until the bound, so y is unchanged; NaN stops both',
  },
  {
    file: 'src/detector/phi.ts',
    mutator: 'EqualityOperator',
    original: 'c < 0',
    replacement: 'c <= 0',
    why:
      'differs only in the sign of a zero: c is exactly 0 at one level (0.30102999566398114, an ulp below ' +
      'log10 2), where y = +0 and the mutant returns −0. The only caller, silenceAtPhi, adds y · sd to a ' +
      'shifted mean >= +0, and m + (−0) === m (+0 + −0 is +0); normalDeviationsAtPhi is not exported from ' +
      'the package',
  },

  // timestamp.ts
  {
    file: 'src/detector/timestamp.ts',
    mutator: 'EqualityOperator',
    original: 'atMs < lastMs',
    replacement: 'atMs <= lastMs',
    why:
      'its only caller, HeartbeatClock.heartbeat, calls checkHeartbeatTimestamp only when ' +
      "!(typeof now === 'number' && now >= this.lastMs && now <= MAX_TIMESTAMP_MS): with atMs === lastMs " +
      'that means atMs is beyond 2^53 − 1, ' +
      'which checkTimestamp rejects on the line before, so equality never reaches this comparison',
  },

  // unavailable-at.ts
  {
    file: 'src/detector/unavailable-at.ts',
    mutator: 'EqualityOperator',
    original: 'x > 0',
    replacement: 'x >= 0',
    why: 'x === 0 (−0 included) has returned on the line above, so x > 0 and x >= 0 agree on every x that reaches it',
  },
];
