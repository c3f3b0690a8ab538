/**
 * Detector settings on the command line: `FAMILY[:key=value,...]`, the keys being the fields of
 * `DetectorConfig` for that family, e.g. `phi-normal:threshold=5,acceptableHeartbeatPauseMs=2000`.
 * Keys left out take the detector's defaults.
 */
import { DETECTOR_FAMILIES, type DetectorConfig, type DetectorFamily } from '../tune/detector-config.js';
import { UsageError } from './args.js';

/** Each family's keys and their defaults (the detectors' own). */
const DEFAULTS: Readonly<Record<DetectorFamily, Readonly<Record<string, number>>>> = {
  'fixed-timeout': { timeoutMs: 5000 },
  chen: { alphaMs: 500, windowSize: 1000 },
  'phi-normal': { threshold: 8, acceptableHeartbeatPauseMs: 3000, minStdDeviationMs: 100 },
  'phi-exponential': { threshold: 8, acceptableHeartbeatPauseMs: 3000 },
};

/** Parses a detector spec; `command` names the command in messages. */
export function parseDetectorSpec(command: string, spec: string): DetectorConfig {
  const [family, rest] = spec.split(':', 2) as [string, string | undefined];
  if (!(DETECTOR_FAMILIES as readonly string[]).includes(family)) {
    throw new UsageError(
      `fdkit ${command}: --detector takes FAMILY[:key=value,...] with FAMILY one of ${DETECTOR_FAMILIES.join(', ')}, got '${spec}'`,
    );
  }
  const defaults = DEFAULTS[family as DetectorFamily];
  const values: Record<string, number> = { ...defaults };
  for (const pair of (rest ?? '').split(',').filter((p) => p !== '')) {
    const match = /^([A-Za-z]+)=(.+)$/.exec(pair);
    const key = match?.[1];
    const value = Number(match?.[2]);
    if (match === null || key === undefined || !(key in defaults)) {
      throw new UsageError(
        `fdkit ${command}: --detector ${family} takes ${Object.keys(defaults).join(', ')} as key=value, got '${pair}'`,
      );
    }
    if (!Number.isFinite(value))
      throw new UsageError(`fdkit ${command}: --detector ${key} takes a number, got '${match[2]}'`);
    values[key] = value;
  }
  return { family, ...values } as DetectorConfig;
}
