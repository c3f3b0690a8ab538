/**
 * `fdkit agent --downing STRATEGY`: the split-brain resolver (docs/downing.md) on the agent's member.
 * On `downed-self` the agent shuts its member down and exits with status 3, unless told to keep running:
 * a side that must stop should not go on serving.
 */
import type { Logger } from 'pino';
import { SplitBrainResolver } from '../downing/split-brain-resolver.js';
import type { SwimNode } from '../node/node.js';
import type { ProfileName } from '../swim/profiles.js';
import type { ParsedFlags } from './args.js';
import { DOWNING_FLAGS, type DowningFlagsSpec, downingFromFlags } from './downing-flags.js';

/** The exit status of an agent whose side was downed. */
export const DOWNED_EXIT_STATUS = 3;

/** The flags of `fdkit agent` for downing. */
export const AGENT_DOWNING_FLAGS = {
  ...DOWNING_FLAGS,
  'keep-running-when-downed': { kind: 'boolean' },
} as const;

/** What the agent resolves partitions with. */
export interface AgentDowningSpec extends DowningFlagsSpec {
  readonly keepRunning: boolean;
}

/** The downing part of the agent's flags, checked before anything starts; undefined without `--downing`. */
export function agentDowningSpec(flags: ParsedFlags): AgentDowningSpec | undefined {
  const spec = downingFromFlags(
    'fdkit agent',
    flags,
    ['quorum-size', 'stable-after-ms', 'keep-running-when-downed'],
    'the agent cannot make: use SplitBrainResolver with a lease',
  );
  return spec === undefined
    ? undefined
    : { ...spec, keepRunning: flags.get('keep-running-when-downed') === true };
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
