/**
 * `fdkit agent --downing STRATEGY`: the split-brain resolver (docs/downing.md) on the agent's member.
 * On `downed-self` the agent shuts its member down and exits with status 3, unless told to keep running:
 * a side that must stop should not go on serving.
 */
import type { Logger } from 'pino';
import type { DowningStrategy } from '../downing/downing-core.js';
import { SplitBrainResolver } from '../downing/split-brain-resolver.js';
import type { SwimNode } from '../node/node.js';
import type { ProfileName } from '../swim/profiles.js';
import { type ParsedFlags, stringFlag, UsageError } from './args.js';

/** The exit status of an agent whose side was downed. */
export const DOWNED_EXIT_STATUS = 3;

/** The flags of `fdkit agent` for downing. */
export const AGENT_DOWNING_FLAGS = {
  downing: { kind: 'string' },
  'quorum-size': { kind: 'integer', min: 1, max: 1_000_000 },
  'stable-after-ms': { kind: 'number', min: 1, max: 3_600_000 },
  'keep-running-when-downed': { kind: 'boolean' },
} as const;

/** What the agent resolves partitions with. */
export interface AgentDowningSpec {
  readonly strategy: DowningStrategy;
  readonly stableAfterMs: number | undefined;
  readonly keepRunning: boolean;
}

const STRATEGIES = ['keep-majority', 'static-quorum', 'keep-oldest', 'keep-oldest-down-if-alone', 'down-all'];

/** The downing part of the agent's flags, checked before anything starts; undefined without `--downing`. */
export function agentDowningSpec(flags: ParsedFlags): AgentDowningSpec | undefined {
  const name = stringFlag(flags, 'downing');
  const quorum = flags.get('quorum-size');
  const stable = flags.get('stable-after-ms');
  if (name === undefined) {
    for (const flag of ['quorum-size', 'stable-after-ms', 'keep-running-when-downed']) {
      if (flags.has(flag)) throw new UsageError(`fdkit agent: --${flag} needs --downing`);
    }
    return undefined;
  }
  if (name === 'lease-majority') {
    throw new UsageError(
      'fdkit agent: --downing lease-majority needs a lease the agent cannot make: use SplitBrainResolver with a lease',
    );
  }
  if (!STRATEGIES.includes(name)) {
    throw new UsageError(`fdkit agent: --downing takes ${STRATEGIES.join(', ')}, got '${name}'`);
  }
  if ((name === 'static-quorum') !== (typeof quorum === 'number')) {
    throw new UsageError('fdkit agent: --quorum-size N goes with --downing static-quorum, and only with it');
  }
  const strategy: DowningStrategy =
    name === 'static-quorum'
      ? { name, quorumSize: quorum as number }
      : name === 'keep-oldest' || name === 'keep-oldest-down-if-alone'
        ? { name: 'keep-oldest', downIfAlone: name === 'keep-oldest-down-if-alone' }
        : { name: name as 'keep-majority' | 'down-all' };
  return {
    strategy,
    stableAfterMs: typeof stable === 'number' ? stable : undefined,
    keepRunning: flags.get('keep-running-when-downed') === true,
  };
}

/** Runs the resolver on a started, joined `node`; on `downed-self`, `stop` ends the agent. */
export function startAgentDowning(
  node: SwimNode,
  spec: AgentDowningSpec,
  context: {
    readonly logger: Logger;
    readonly profile: ProfileName;
    readonly stop: (status: number) => void;
  },
): SplitBrainResolver {
  const resolver = new SplitBrainResolver(node, {
    strategy: spec.strategy,
    profile: context.profile,
    ...(spec.stableAfterMs === undefined ? {} : { stableAfterMs: spec.stableAfterMs }),
  });
  resolver.on('down', (d) =>
    context.logger.warn({ members: d.members, reason: d.reason }, 'downed unreachable members'),
  );
  resolver.on('downed-self', (d) => {
    context.logger.error(
      { reason: d.reason, reachable: d.reachable, unreachable: d.unreachable },
      spec.keepRunning
        ? 'downed by the split-brain resolver; running on'
        : 'downed by the split-brain resolver; exiting',
    );
    if (!spec.keepRunning) context.stop(DOWNED_EXIT_STATUS);
  });
  return resolver;
}
