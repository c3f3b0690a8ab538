/**
 * `fdkit agent`: one cluster member as a process. Stdout carries one JSON line per membership event and
 * nothing else, so that other programs can follow the cluster with a line reader; logs go to stderr.
 * SIGINT and SIGTERM leave the cluster gracefully (others report `left`, not `dead`); a second signal
 * exits at once.
 */
import { EventEmitter } from 'node:events';
import { pino } from 'pino';
import type { SplitBrainResolverEventMap } from '../downing/split-brain-resolver.js';
import { InvalidOptionError, JoinError, NetworkError } from '../errors.js';
import { createNode, type SwimNode } from '../node/node.js';
import { isProfileName, PROFILE_LIST, type ProfileName } from '../swim/profiles.js';
import { checkSeed } from '../transport/resolve.js';
import { AGENT_DOWNING_FLAGS, agentDowningSpec, startAgentDowning } from './agent-downing.js';
import { AGENT_HTTP_FLAGS, type AgentHttp, agentHttpSpec, startAgentHttp } from './agent-http.js';
import { commandFlags, listFlag, stringFlag, UsageError } from './args.js';
import { readKeyringFile } from './keyring-file.js';

/** One stdout line: the event shape of docs/design.md, "Command line". */
export interface AgentEventLine {
  /** Wall time of the event, Unix ms. */
  readonly t: number;
  /** The agent's own member name. */
  readonly node: string;
  readonly event: 'alive' | 'suspect' | 'dead' | 'left' | 'update';
  readonly member: string;
  readonly incarnation: number;
  readonly cause: string;
}

/** Where the agent writes, and how it learns of signals (the process by default). */
export interface AgentIo {
  readonly stdout: (line: string) => void;
  /** Log destination: a writable stream for pino; stderr by default. */
  readonly stderr: NodeJS.WritableStream;
  readonly exit: (code: number) => void;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Runs the agent until a signal; resolves once it is started and joined (or joining). */
export async function runAgentCommand(argv: readonly string[], io: AgentIo): Promise<SwimNode | undefined> {
  const flags = commandFlags('fdkit agent', argv, {
    name: { kind: 'string' },
    bind: { kind: 'string' },
    advertise: { kind: 'string' },
    join: { kind: 'list' },
    profile: { kind: 'string' },
    meta: { kind: 'string' },
    'log-level': { kind: 'string' },
    'keyring-file': { kind: 'string' },
    label: { kind: 'string' },
    wire: { kind: 'string' },
    'retry-join': { kind: 'boolean' },
    ...AGENT_HTTP_FLAGS,
    ...AGENT_DOWNING_FLAGS,
  });
  const name = stringFlag(flags, 'name');
  const bind = stringFlag(flags, 'bind');
  if (name === undefined || bind === undefined) {
    throw new UsageError('fdkit agent: --name NAME and --bind HOST:PORT are required');
  }
  const profile = stringFlag(flags, 'profile') ?? 'lan';
  if (!isProfileName(profile)) {
    throw new UsageError(`fdkit agent: --profile takes ${PROFILE_LIST}, got '${profile}'`);
  }
  const level = stringFlag(flags, 'log-level') ?? 'info';
  if (!LOG_LEVELS.includes(level)) {
    throw new UsageError(`fdkit agent: --log-level takes one of ${LOG_LEVELS.join(', ')}, got '${level}'`);
  }
  const seeds = listFlag(flags, 'join');
  for (const seed of seeds) {
    try {
      checkSeed(seed);
    } catch (error) {
      throw new UsageError(`fdkit agent: --join ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const wire = stringFlag(flags, 'wire') ?? 'fdkit';
  if (wire !== 'fdkit' && wire !== 'memberlist') {
    throw new UsageError(`fdkit agent: --wire takes fdkit or memberlist, got '${wire}'`);
  }
  const keyringFile = stringFlag(flags, 'keyring-file');
  const label = stringFlag(flags, 'label');
  // memberlist's label travels in a header of its own and needs no encryption; fdkit's is authenticated by it.
  if (label !== undefined && keyringFile === undefined && wire === 'fdkit') {
    throw new UsageError(
      'fdkit agent: --label needs --keyring-file (the label is authenticated by the encryption)',
    );
  }
  const keyring = keyringFile === undefined ? undefined : readKeyringFile('agent', keyringFile);
  const httpSpec = agentHttpSpec(flags);
  const downingSpec = agentDowningSpec(flags);
  const advertise = stringFlag(flags, 'advertise');
  const meta = stringFlag(flags, 'meta');
  const logger = pino({ level, base: { node: name } }, io.stderr);
  let node: SwimNode | undefined;
  let http: AgentHttp | undefined;
  // The hint starts with the API, the resolver only after the join: its decisions reach the hint here.
  const decisions = downingSpec === undefined ? undefined : new EventEmitter<SplitBrainResolverEventMap>();
  // Health says `starting` until the seeds answered; a member started without seeds is the first.
  let joined = seeds.length === 0;
  try {
    node = createNode({
      name,
      bind,
      profile: profile as ProfileName,
      logger,
      ...(advertise === undefined ? {} : { advertise }),
      ...(meta === undefined ? {} : { meta: new TextEncoder().encode(meta) }),
      ...(keyring === undefined ? {} : { keyring }),
      ...(label === undefined ? {} : { label }),
      ...(wire === 'fdkit' ? {} : { wire }),
    });
    for (const event of ['alive', 'suspect', 'dead', 'left', 'update'] as const) {
      node.on(event, (e) => {
        const line: AgentEventLine = {
          t: Math.round(e.wallMs),
          node: name,
          event,
          member: e.member,
          incarnation: e.incarnation,
          cause: e.cause,
        };
        io.stdout(`${JSON.stringify(line)}\n`);
      });
    }
    node.on('declared-dead', (e) => {
      // Part of the cluster held this member dead: an operator may want to know why (a pause, a cut).
      logger.warn(
        { accuser: e.accuser, incarnation: e.incarnation, refuted: e.refuted },
        e.refuted
          ? 'declared dead by another member; refuted'
          : 'declared dead by another member while leaving',
      );
    });
    await node.start();
    if (httpSpec !== undefined) {
      const started = node;
      http = await startAgentHttp(started, httpSpec, {
        logger,
        // A member that joined later, through --retry-join's retries, is joined too.
        joined: () => joined || started.members().some((m) => m.name !== name && m.state === 'alive'),
        downing: decisions,
        left: () => {
          void started.shutdown().then(
            () => io.exit(0),
            () => io.exit(1),
          );
        },
      });
    }
  } catch (error) {
    if (error instanceof NetworkError || error instanceof InvalidOptionError) {
      io.stderr.write(`fdkit agent: ${error.message}\n`);
      await node?.shutdown();
      io.exit(1);
      return undefined;
    }
    throw error;
  }
  logger.info({ address: node.localAddress }, 'agent started');
  if (seeds.length > 0 && flags.get('retry-join') !== true) {
    // As serf agent does: a join that fails at start is a misconfiguration to stop on, not to hide.
    try {
      logger.info({ seeds, answered: await node.join(seeds) }, 'joined');
      joined = true;
    } catch (error) {
      if (!(error instanceof JoinError)) throw error;
      io.stderr.write(`fdkit agent: ${error.message} (--retry-join keeps the agent up and retrying)\n`);
      await http?.close();
      await node.shutdown();
      io.exit(1);
      return undefined;
    }
  } else if (seeds.length > 0) {
    node.join(seeds).then(
      (answered) => {
        joined = true;
        logger.info({ seeds, answered }, 'joined');
      },
      (error: unknown) => {
        // The member keeps retrying its seeds; say why this attempt failed and carry on.
        logger.warn(
          { seeds, error: error instanceof Error ? error.message : String(error) },
          'join failed, retrying',
        );
      },
    );
  }
  if (downingSpec !== undefined) {
    // After the join: the resolver counts the cluster from the view it starts with.
    const started = node;
    const resolver = startAgentDowning(started, downingSpec, {
      logger,
      profile: profile as ProfileName,
      stop: (status) => {
        void http?.close();
        void started.shutdown().then(
          () => io.exit(status),
          () => io.exit(status),
        );
      },
    });
    resolver.on('down', (d) => decisions?.emit('down', d));
    resolver.on('downed-self', (d) => decisions?.emit('downed-self', d));
  }
  return node;
}

/** Leaves gracefully on the first SIGINT or SIGTERM, exits at once on the second. */
export function leaveOnSignals(node: SwimNode, exit: (code: number) => void): void {
  let leaving = false;
  const onSignal = (): void => {
    if (leaving) {
      exit(130);
      return;
    }
    leaving = true;
    node
      .leave()
      .then(() => node.shutdown())
      .then(
        () => exit(0),
        () => exit(1),
      );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
