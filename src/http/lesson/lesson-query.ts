/**
 * The query of `GET /lesson/run`: `pause` and `term` in ms, and `fencing` as 0 or 1. Read strictly, as the
 * command line's flags are: an unknown, repeated or malformed parameter is refused with a message that
 * names it and the value received, rather than read as something else or ignored.
 */
import { LESSON_LIMITS, type LeaseLessonInput } from '../../fencing/lesson/lease-lesson.js';

/** What is wrong with a query: the parameter's name and the message to answer with. */
export interface QueryProblem {
  readonly parameter: string;
  readonly message: string;
}

const KNOWN = ['pause', 'term', 'fencing'];
const DECIMAL = /^(?:0|[1-9]\d*)$/;

/** The lesson's input that `search` (without its `?`) asks for, or what is wrong with it. */
export function lessonQuery(search: string): LeaseLessonInput | QueryProblem {
  const params = new URLSearchParams(search);
  for (const name of new Set(params.keys())) {
    if (!KNOWN.includes(name)) {
      return {
        parameter: name,
        message: `unknown query parameter ${quoted(name)}; known: ${KNOWN.join(', ')}`,
      };
    }
    if (params.getAll(name).length > 1) {
      return { parameter: name, message: `query parameter ${name} is given more than once` };
    }
  }
  const pause = milliseconds(params, 'pause', LESSON_LIMITS.pauseMs);
  if (typeof pause !== 'number') return pause;
  const term = milliseconds(params, 'term', LESSON_LIMITS.termMs);
  if (typeof term !== 'number') return term;
  const fencing = params.get('fencing') ?? '0';
  if (fencing !== '0' && fencing !== '1') {
    return {
      parameter: 'fencing',
      message: `query parameter fencing must be 0 or 1, got ${quoted(fencing)}`,
    };
  }
  return { pauseMs: pause, termMs: term, fencing: fencing === '1' };
}

function milliseconds(
  params: URLSearchParams,
  name: string,
  range: { readonly min: number; readonly max: number },
): number | QueryProblem {
  const raw = params.get(name);
  const wanted = `an integer number of ms from ${range.min} to ${range.max}`;
  if (raw === null) return { parameter: name, message: `query parameter ${name} is required: ${wanted}` };
  const value = Number(raw);
  if (!DECIMAL.test(raw) || value < range.min || value > range.max) {
    return { parameter: name, message: `query parameter ${name} must be ${wanted}, got ${quoted(raw)}` };
  }
  return value;
}

/** `text` quoted for a message, cut short: a query can be as long as a request line. */
function quoted(text: string): string {
  return `'${text.length > 40 ? `${text.slice(0, 40)}…` : text}'`;
}
