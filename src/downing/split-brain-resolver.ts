/**
 * `SplitBrainResolver`: the downing core (`downing-core.ts`) over a live membership source, a
 * `SwimNode` or a `HeartbeatMonitor`, with its decisions as events.
 */
import { EventEmitter } from 'node:events';
import { InvalidOptionError } from '../errors.js';
import type { MemberEvent } from '../membership/events.js';
import type { MemberStateName } from '../membership/member-state.js';
import { systemClock } from '../runtime/system.js';
import { DowningCore } from './downing-core.js';
import { resolveDowningOptions, type SplitBrainResolverOptions } from './downing-options.js';
import type { DownDecision, DownedSelfDecision, DowningDecision } from './downing-types.js';
import type { ReachProbe } from './reach-check.js';

/** A member as the resolver reads it from its source. */
export interface DowningSourceMember {
  /** Its name. */
  readonly name: string;
  /** Its state in the source's view (`unknown`: a heartbeat peer not heard from yet). */
  readonly state: MemberStateName | 'unknown';
  /** The incarnation held for it: its age, smaller is older. */
  readonly incarnation: number;
}

/**
 * What the resolver reads of a membership source: a started `SwimNode` (`members`, `localMember`,
 * `probe`) or a started `HeartbeatMonitor` (`peers`, `localName`, `localIncarnation`) has it all.
 */
export interface DowningSource {
  /** Subscribes to one kind of member event. */
  on(event: MemberEvent['type'], listener: (event: MemberEvent) => void): unknown;
  /** Removes a listener that `on` added. */
  off(event: MemberEvent['type'], listener: (event: MemberEvent) => void): unknown;
  /** Every member known, the local one included (a SWIM node). */
  members?(): readonly DowningSourceMember[];
  /** Every peer monitored (a heartbeat monitor). */
  peers?(): readonly DowningSourceMember[];
  /**
   * Asks whether a member answers now, as a SWIM probe does (`SwimNode.probe`). With it, the resolver
   * checks its view before deciding, so that a side slow to find the members it cannot reach does not
   * count them as its own; a heartbeat monitor, which hears from every peer all the time, has none.
   */
  probe?(member: string): Promise<boolean>;
  /** The local member (a SWIM node). */
  readonly localMember?: {
    /** Its name. */
    readonly name: string;
    /** Its incarnation. */
    readonly incarnation: number;
  };
  /** The local member's name (a heartbeat monitor). */
  readonly localName?: string;
  /** The local member's incarnation (a heartbeat monitor). */
  readonly localIncarnation?: number;
}

/** The two sides of a cut, by name, as {@link SplitBrainResolver.sides} gives them. */
export interface DowningSides {
  /** The members this side reaches, itself included. */
  readonly reachable: readonly string[];
  /** Those it does not, not yet downed. */
  readonly unreachable: readonly string[];
}

/** The events of a {@link SplitBrainResolver}, by name. */
export interface SplitBrainResolverEventMap {
  /** This side stays up and removed the members it could not reach. */
  down: [DownDecision];
  /** This side must stop: shut the member down (an agent exits). Emitted once; nothing follows. */
  'downed-self': [DownedSelfDecision];
}

const EVENTS: readonly MemberEvent['type'][] = ['alive', 'suspect', 'dead', 'left'];

/** The local member, from a SWIM node's `localMember` or a heartbeat monitor's name and incarnation. */
function selfOf(source: DowningSource): { name: string; incarnation: number } | undefined {
  const member = source.localMember;
  if (member !== undefined) return member;
  const name = source.localName;
  const incarnation = source.localIncarnation;
  return name === undefined || incarnation === undefined ? undefined : { name, incarnation };
}

/** The source's probe as the core's port; a probe that fails (the member stopped) is no answer. */
function probeOf(source: DowningSource): ReachProbe | undefined {
  if (typeof source.probe !== 'function') return undefined;
  const probe = source.probe.bind(source);
  return (name, done) => {
    let asked: Promise<boolean>;
    try {
      asked = probe(name);
    } catch {
      done(false);
      return;
    }
    asked.then(done, () => done(false));
  };
}

/**
 * Decides, when a cut leaves members unreachable, which side stays up, so that a partition does not
 * leave two clusters each sure it is the only one (docs/downing.md). Once the view has been stable for
 * `stableAfterMs`, its strategy either downs the members this side cannot reach (a `'down'` event) or
 * this side itself (`'downed-self'`: the application must stop the member, and anything it leads).
 *
 * Every member must run the same strategy with the same settings: the sides decide apart, each on its
 * own view, and only the same rule on both makes exactly one of them stay.
 *
 * Throws an `InvalidOptionError` for a bad option, or when the source has no local member (not started).
 *
 * @example
 * ```ts
 * const resolver = new SplitBrainResolver(node, { strategy: 'keep-majority' });
 * resolver.on('downed-self', async (d) => {
 *   console.error(`downed: ${d.reason}`);
 *   await node.shutdown();
 *   process.exit(1);
 * });
 * ```
 */
export class SplitBrainResolver extends EventEmitter<SplitBrainResolverEventMap> {
  private readonly core: DowningCore;
  private readonly listener = (event: MemberEvent): void => this.observe(event);

  constructor(
    private readonly source: DowningSource,
    options: SplitBrainResolverOptions,
  ) {
    super();
    let self: { name: string; incarnation: number } | undefined;
    try {
      self = selfOf(source);
    } catch (error) {
      throw new InvalidOptionError(
        'FDKIT_INVALID_OPTION',
        'source',
        'SplitBrainResolver: the source has no local member yet: create the resolver after start()',
        { cause: error },
      );
    }
    if (self === undefined) {
      throw new InvalidOptionError(
        'FDKIT_INVALID_OPTION',
        'source',
        'SplitBrainResolver: the source has neither localMember nor localName and localIncarnation: pass a SwimNode or a HeartbeatMonitor',
      );
    }
    const members = source.members?.() ?? source.peers?.() ?? [];
    // A heartbeat monitor's peers leave itself out; the wait is for the cluster's size.
    const size = source.members === undefined ? members.length + 1 : members.length;
    const resolved = resolveDowningOptions(options, size);
    this.core = new DowningCore(
      {
        self: { name: self.name, age: self.incarnation },
        strategy: resolved.strategy,
        stableAfterMs: resolved.stableAfterMs,
        downAllWhenUnstableMs: resolved.downAllWhenUnstableMs,
        reach: probeOf(source),
      },
      resolved.clock ?? systemClock,
      (decision) => this.decided(decision),
    );
    for (const m of members) {
      if (m.state !== 'left' && m.state !== 'unknown') this.core.observe(m.name, m.state, m.incarnation);
    }
    for (const type of EVENTS) source.on(type, this.listener);
  }

  /** The members this side reaches, itself included, and those it does not, as the core counts them. */
  sides(): DowningSides {
    const sides = this.core.sides();
    return {
      reachable: sides.reachable.map((m) => m.name),
      unreachable: sides.unreachable.map((m) => m.name),
    };
  }

  /** True once this side downed itself. */
  get downedSelf(): boolean {
    return this.core.downedSelf;
  }

  /** Stops listening and deciding. Idempotent. */
  stop(): void {
    this.core.stop();
    for (const type of EVENTS) this.source.off(type, this.listener);
  }

  private observe(event: MemberEvent): void {
    if (event.type === 'update') return;
    this.core.observe(event.member, event.type, event.incarnation);
  }

  private decided(decision: DowningDecision): void {
    if (decision.kind === 'down') {
      this.emit('down', decision);
      return;
    }
    for (const type of EVENTS) this.source.off(type, this.listener);
    this.emit('downed-self', decision);
  }
}
