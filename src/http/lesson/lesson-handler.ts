/**
 * The lease lesson over HTTP, as a `node:http` request handler an application can mount in its own
 * server: the page at `/` and `/lesson`, and `GET /lesson/run?pause=MS&term=MS&fencing=0|1`, which runs
 * the lesson (the real fencing guard and lease state, on a virtual clock) and answers its timeline as
 * JSON. Every answer is computed from the query alone, so the handler holds no state between requests.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type LeaseLessonInput,
  type LeaseLessonResult,
  runLeaseLesson,
} from '../../fencing/lesson/lease-lesson.js';
import { sendError, sendJson, sendPage } from '../respond.js';
import { lessonPage } from './lesson-page.js';
import { lessonQuery } from './lesson-query.js';

/** The body of `GET /lesson/run`: the input as read from the query, and the lesson's outcome. */
interface LessonRunJson extends LeaseLessonResult {
  readonly input: LeaseLessonInput;
}

/**
 * Answers a request for one of the lesson's paths and returns true; returns false, without touching
 * `res`, for any other path, so that the caller can route it elsewhere or answer 404.
 */
export type LessonHandler = (req: IncomingMessage, res: ServerResponse) => boolean;

const PAGE_PATHS = new Set(['/', '/lesson']);
const RUN_PATH = '/lesson/run';

/** The lesson's request handler. */
export function leaseLessonHandler(): LessonHandler {
  const page = lessonPage();
  return (req, res) => {
    const url = req.url ?? '/';
    const question = url.indexOf('?');
    const path = question === -1 ? url : url.slice(0, question);
    if (!PAGE_PATHS.has(path) && path !== RUN_PATH) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      sendError(res, 405, 'FDKIT_HTTP_METHOD', `${req.method} ${path}: only GET is served here`, {
        Allow: 'GET, HEAD',
      });
      return true;
    }
    if (path !== RUN_PATH) {
      sendPage(res, page.html, page.policy);
      return true;
    }
    const input = lessonQuery(question === -1 ? '' : url.slice(question + 1));
    if ('message' in input) {
      sendError(res, 400, 'FDKIT_HTTP_BAD_REQUEST', `GET ${RUN_PATH}: ${input.message}`);
      return true;
    }
    const body: LessonRunJson = { input, ...runLeaseLesson(input) };
    sendJson(res, 200, body);
    return true;
  };
}
