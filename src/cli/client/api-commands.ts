/**
 * `fdkit members`, `fdkit leader` and `fdkit leave` against a running agent's HTTP API, like `serf
 * members`: a table for people, `--json` for programs.
 */
import type { LeaderJson, MemberJson } from '../../http/api-types.js';
import type { Clock } from '../../runtime/clock.js';
import { commandFlags, stringFlag, UsageError } from '../args.js';
import type { CommandIo } from '../trace-command.js';
import { apiTarget, CLIENT_FLAGS, getJson, request } from './api-client.js';
import { memberTable } from './member-table.js';

const STATES = ['alive', 'suspect', 'dead', 'left'];

/** `fdkit members --http ADDR [--json] [--state STATE]`. */
export async function runMembersCommand(
  argv: readonly string[],
  io: CommandIo,
  clock: Clock,
): Promise<number> {
  const program = 'fdkit members';
  const flags = commandFlags(program, argv, {
    ...CLIENT_FLAGS,
    json: { kind: 'boolean' },
    state: { kind: 'string' },
  });
  const state = stringFlag(flags, 'state');
  if (state !== undefined && !STATES.includes(state)) {
    throw new UsageError(`${program}: --state takes ${STATES.join(', ')}, got '${state}'`);
  }
  const target = apiTarget(program, flags);
  const members = await getJson<MemberJson[]>(
    target,
    state === undefined ? '/v1/members' : `/v1/members?state=${state}`,
  );
  io.stdout(
    flags.get('json') === true ? `${JSON.stringify(members)}\n` : memberTable(members, clock.wallNow()),
  );
  return 0;
}

/** `fdkit leader --http ADDR [--json]`. */
export async function runLeaderCommand(argv: readonly string[], io: CommandIo): Promise<number> {
  const program = 'fdkit leader';
  const flags = commandFlags(program, argv, { ...CLIENT_FLAGS, json: { kind: 'boolean' } });
  const leader = await getJson<LeaderJson>(apiTarget(program, flags), '/v1/leader');
  io.stdout(
    flags.get('json') === true
      ? `${JSON.stringify(leader)}\n`
      : `${leader.leader ?? 'none: the split-brain resolver downed this side'} (epoch ${leader.epoch}${leader.isLeader ? ', this agent' : ''})\n`,
  );
  return 0;
}

/** `fdkit leave --http ADDR`: the agent leaves gracefully and exits. */
export async function runLeaveCommand(argv: readonly string[], io: CommandIo): Promise<number> {
  const program = 'fdkit leave';
  const flags = commandFlags(program, argv, CLIENT_FLAGS);
  const res = await request(apiTarget(program, flags), '/v1/leave', { method: 'POST' });
  const result = (await res.json()) as { acknowledged: number; live: number; timedOut: boolean };
  io.stdout(
    `left: ${result.acknowledged} of ${result.live} live members acknowledged${result.timedOut ? ' (timed out waiting for the rest)' : ''}\n`,
  );
  return 0;
}
