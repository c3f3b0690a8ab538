/**
 * Turns the events that simulated members emit into the report's detection and accuracy figures. It
 * knows the ground truth (which process is up, when each crashed) and compares every member's claims
 * with it, as they are made.
 */
import type { MemberEvent } from '../membership/events.js';

/** What the collector needs to know of the simulated processes. */
export interface GroundTruth {
  /** Whether the process of `member` is up (running or paused) now. */
  isUp(member: number): boolean;
  /** The incarnation the current life of `member` started with. */
  lifeIncarnation(member: number): number;
  /** Index of the member called `name`. */
  indexOf(name: string): number;
}

interface CrashRecord {
  readonly member: number;
  readonly atMs: number;
  /** The member's incarnation when it crashed: the life that ended. */
  readonly incarnation: number;
  /** 1 for each observer that has held that life dead. */
  readonly knewDeath: Uint8Array;
  firstSuspectMs: number;
  firstDeadMs: number;
  /** When each observer last came to hold the member dead (NaN: never). */
  readonly deadAt: Float64Array;
}

export class MetricsCollector {
  falseSuspicions = 0;
  falseDeaths = 0;
  /**
   * Alive events about a crashed member, not restarted, from observers that had held the life that ended
   * dead (not an earlier one, which a paused observer may still be catching up on).
   */
  resurrections = 0;
  private readonly crashes: CrashRecord[] = [];
  private readonly openCrash = new Map<number, CrashRecord>();
  private joiner = -1;
  private joinAtMs = Number.NaN;
  private joinKnownAt: Float64Array | undefined;

  constructor(
    private readonly members: number,
    private readonly truth: GroundTruth,
  ) {}

  /** Records that `member` crashed at `atMs`, at `incarnation`. */
  crashed(member: number, atMs: number, incarnation: number): void {
    const record: CrashRecord = {
      member,
      atMs,
      incarnation,
      knewDeath: new Uint8Array(this.members),
      firstSuspectMs: Number.NaN,
      firstDeadMs: Number.NaN,
      deadAt: new Float64Array(this.members).fill(Number.NaN),
    };
    this.crashes.push(record);
    this.openCrash.set(member, record);
  }

  /** Records that `member` came back, closing its crash record. */
  restarted(member: number): void {
    this.openCrash.delete(member);
  }

  /** Records that `member` joined at `atMs`, to time how long until everyone knows it. */
  joined(member: number, atMs: number): void {
    this.joiner = member;
    this.joinAtMs = atMs;
    this.joinKnownAt = new Float64Array(this.members).fill(Number.NaN);
  }

  /** Takes one event emitted by `observer`. */
  record(observer: number, event: MemberEvent): void {
    const member = this.truth.indexOf(event.member);
    const crash = this.openCrash.get(member);
    if (event.type === 'alive') {
      // This observer knew the death of the life that ended, and holds it alive now: old news revived it.
      if (crash !== undefined && crash.knewDeath[observer] === 1) this.resurrections++;
      if (
        member === this.joiner &&
        this.joinKnownAt !== undefined &&
        Number.isNaN(this.joinKnownAt[observer]!)
      )
        this.joinKnownAt[observer] = event.atMs;
      return;
    }
    if (event.type !== 'suspect' && event.type !== 'dead') return;
    if (crash !== undefined) {
      if (event.type === 'suspect' && Number.isNaN(crash.firstSuspectMs)) crash.firstSuspectMs = event.atMs;
      if (event.type === 'dead') {
        if (Number.isNaN(crash.firstDeadMs)) crash.firstDeadMs = event.atMs;
        crash.deadAt[observer] = event.atMs;
        if (event.incarnation >= crash.incarnation) crash.knewDeath[observer] = 1;
      }
      return;
    }
    if (this.truth.isUp(member) && event.incarnation >= this.truth.lifeIncarnation(member)) {
      if (event.type === 'suspect') this.falseSuspicions++;
      else this.falseDeaths++;
    }
  }

  /** Whether `observer` has held `member` dead since its crash (it is still down). */
  heldDeadSinceCrash(observer: number, member: number): boolean {
    const crash = this.openCrash.get(member);
    return crash !== undefined && !Number.isNaN(crash.deadAt[observer]!);
  }

  /** Detection figures at the end of the run; `holdsDead(observer, member)` reads the final views. */
  detection(
    observers: readonly number[],
    holdsDead: (observer: number, member: number) => boolean,
  ): { crashed: number; missed: number; firstSuspect: number[]; firstDead: number[]; allKnowDead: number[] } {
    const firstSuspect: number[] = [];
    const firstDead: number[] = [];
    const allKnowDead: number[] = [];
    let missed = 0;
    for (const c of this.crashes) {
      if (!Number.isNaN(c.firstSuspectMs)) firstSuspect.push(c.firstSuspectMs - c.atMs);
      if (!Number.isNaN(c.firstDeadMs)) firstDead.push(c.firstDeadMs - c.atMs);
      if (this.openCrash.get(c.member) !== c) continue;
      let last = c.atMs;
      let complete = true;
      for (const o of observers) {
        if (o === c.member) continue;
        if (!holdsDead(o, c.member)) {
          complete = false;
          break;
        }
        const at = c.deadAt[o]!;
        if (!Number.isNaN(at)) last = Math.max(last, at);
      }
      if (complete) allKnowDead.push(last - c.atMs);
      else missed++;
    }
    return { crashed: this.crashes.length, missed, firstSuspect, firstDead, allKnowDead };
  }

  /** Time from the join until every observer knew the joiner, or null. */
  joinAllKnowMs(observers: readonly number[]): number | null {
    if (this.joinKnownAt === undefined) return null;
    let last = this.joinAtMs;
    for (const o of observers) {
      if (o === this.joiner) continue;
      const at = this.joinKnownAt[o]!;
      if (Number.isNaN(at)) return null;
      last = Math.max(last, at);
    }
    return last - this.joinAtMs;
  }
}
