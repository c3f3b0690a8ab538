/**
 * `fdkit/http`: a member's HTTP API as a plain `node:http` request listener, with no framework:
 * Prometheus metrics, members, self, leader, health, a Server-Sent Events stream and the operator
 * actions. See docs/http.md for every endpoint and its JSON.
 *
 * @module fdkit/http
 */
export type {
  ErrorJson,
  HealthJson,
  LeaderJson,
  MemberJson,
  SelfJson,
  StreamEventJson,
} from '../http/api-types.js';
export { type FdkitHttpHandler, fdkitHttpHandler } from '../http/handler.js';
export type { HttpHandlerOptions } from '../http/handler-options.js';
export type {
  HttpLeaderChange,
  HttpLeaderSource,
  HttpLeaveResult,
  HttpMember,
  HttpMemberEventName,
  HttpMetricsSource,
  HttpSource,
} from '../http/http-source.js';
export type { HttpErrorCode } from '../http/respond.js';
