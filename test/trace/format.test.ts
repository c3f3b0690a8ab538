/**
 * Traces as JSON lines: a trace written and read back is the same trace, and every way a file can be
 * wrong is a `TraceFormatError` that names the file and the line.
 */
import { describe, expect, it } from 'vitest';
import { TraceFormatError } from '../../src/errors.js';
import { generateTrace } from '../../src/trace/generate.js';
import { burstyLoss } from '../../src/trace/loss.js';
import type { Trace } from '../../src/trace/trace.js';
import { checkTrace, formatTrace, parseTrace } from '../../src/trace/trace-format.js';

const HEADER =
  '{"format":"fdkit-trace","version":1,"source":"recorded","intervalMs":1000,"durationMs":10000}';

function lines(...rest: string[]): string {
  return [HEADER, ...rest].join('\n');
}

describe('trace format', () => {
  it('reads back what it writes: a generated trace, with its header and send times', () => {
    const trace = generateTrace({
      seed: 3,
      durationMs: 120_000,
      delay: { distribution: 'lognormal', meanMs: 30, stdDeviationMs: 40 },
      loss: burstyLoss(0.05, 2),
      pauses: [{ atMs: 30_000, durationMs: 4000 }],
      crashAtMs: 100_000,
    });
    const text = formatTrace(trace);
    expect(text.endsWith('\n')).toBe(true);
    expect(text.split('\n')[1]).toMatch(/^\{"t":[\d.]+,"seq":0,"sent":0\}$/);
    expect(parseTrace(text)).toEqual(trace);
  });

  it('reads back a recorded trace with lives and the recording', () => {
    const trace: Trace = {
      header: {
        format: 'fdkit-trace',
        version: 1,
        source: 'recorded',
        intervalMs: 500,
        durationMs: 5000,
        recording: {
          peer: '10.0.0.6:7947',
          peerName: 'n2',
          recorder: '10.0.0.5:7947',
          startedAtUnixMs: 1_790_000_000_000,
        },
      },
      arrivals: [
        { t: 0.25, seq: 17 },
        { t: 500.5, seq: 18 },
        { t: 500.5, seq: 18 },
        { t: 3000, seq: 0, life: 1 },
      ],
    };
    expect(parseTrace(formatTrace(trace))).toEqual(trace);
  });

  it('ignores blank lines, and a missing final newline', () => {
    const trace = parseTrace(`${HEADER}\n\n{"t":1,"seq":0}\n   \n{"t":2,"seq":1}`);
    expect(trace.arrivals).toEqual([
      { t: 1, seq: 0 },
      { t: 2, seq: 1 },
    ]);
  });

  it.each([
    ['', 0, 'the trace is empty'],
    ['\n\n', 0, 'the trace is empty'],
    ['{"t":1,"seq":0}', 1, 'the first line must be a trace header'],
    [
      '{"format":"fdkit-trace","version":2,"source":"recorded","intervalMs":1000,"durationMs":1}',
      1,
      'unsupported trace version 2',
    ],
    [
      '{"format":"fdkit-trace","version":1,"source":"recorded","intervalMs":0,"durationMs":1}',
      1,
      '"intervalMs" must be a number >= ',
    ],
    [
      '{"format":"fdkit-trace","version":1,"source":"guessed","intervalMs":1,"durationMs":1}',
      1,
      '"source" must be "generated" or "recorded"',
    ],
    [
      '{"format":"fdkit-trace","version":1,"source":"recorded","intervalMs":1,"durationMs":10,"crashAtMs":11}',
      1,
      '"crashAtMs" must be a number in [0, 10]',
    ],
    [
      '{"format":"fdkit-trace","version":1,"source":"recorded","intervalMs":1,"durationMs":10,"seed":1}',
      1,
      'unknown field "seed" in the header',
    ],
    [
      '{"format":"fdkit-trace","version":1,"source":"recorded","intervalMs":1,"durationMs":10,"recording":{"peer":"a:1"}}',
      1,
      '"recording.recorder" must be a non-empty string',
    ],
    [lines('{"t":1,"seq":0}', '{"t":2,"seq":1', '{"t":3,"seq":2}'), 3, 'not JSON'],
    [
      lines('{"t":1,"seq":0}', '{"t":2,"seq":1}', '{"t":1.5,"seq":2}'),
      4,
      'arrivals must be in order of arrival: t 1.5 is before the previous 2',
    ],
    [lines('{"t":1,"seq":-1}'), 2, '"seq" must be an integer in [0, 4294967295], got -1'],
    [lines('{"t":1,"seq":0.5}'), 2, '"seq" must be an integer'],
    [lines('{"t":1,"seq":4294967296}'), 2, '"seq" must be an integer'],
    [lines('{"t":"1","seq":0}'), 2, '"t" must be a number in [0, 10000], got "1"'],
    [lines('{"t":10001,"seq":0}'), 2, '"t" must be a number in [0, 10000]'],
    [lines('{"seq":0}'), 2, '"t" must be a number'],
    [lines('{"t":1,"seq":0,"from":"n2"}'), 2, 'unknown field "from" in an arrival'],
    [lines('{"t":1,"seq":0,"sent":2}'), 2, '"sent" must be a number in [0, 1]'],
    [lines('{"t":1,"seq":0,"life":1}', '{"t":2,"seq":0,"life":0}'), 3, '"life" never decreases: 0 after 1'],
    [lines('[1,2]'), 2, 'an arrival must be an object'],
  ])('rejects %j at line %i: %s', (text, line, message) => {
    let error: unknown;
    try {
      parseTrace(text, { source: 'run.jsonl' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TraceFormatError);
    const e = error as TraceFormatError;
    expect(e.code).toBe('FDKIT_BAD_TRACE');
    expect(e.line).toBe(line);
    expect(e.message.startsWith(`run.jsonl:${line}: `)).toBe(true);
    expect(e.message).toContain(message);
  });

  it('checks a trace built in code by the same rules, numbering arrivals as lines of a file', () => {
    const trace = parseTrace(lines('{"t":1,"seq":0}', '{"t":2,"seq":1}'));
    expect(() => checkTrace(trace)).not.toThrow();
    const bad = { ...trace, arrivals: [...trace.arrivals, { t: 3, seq: -2 }] };
    expect(() => checkTrace(bad, { source: 'mine' })).toThrow(/^mine:4: "seq" must be an integer/);
  });
});
