/**
 * Every SwimConfig field is range-checked, through `resolveSwimConfig` and through `expectedTiming`; the
 * ranges are written out here from the documentation.
 */
import { describe, expect, it } from 'vitest';
import {
  expectedTiming,
  lan,
  resolveSwimConfig,
  SWIM_CONFIG_KEYS,
  type SwimConfig,
} from '../../src/index.js';
import { expectOptionError, NON_FINITE, shown } from '../support/validation.js';

interface SwimField {
  readonly min: number;
  readonly max: number;
  readonly integer: boolean;
}

// The documented ranges; probeTimeoutMs must in addition be <= probeIntervalMs.
const SWIM_FIELDS: { readonly [K in keyof SwimConfig]: SwimField } = {
  probeIntervalMs: { min: 1, max: 3_600_000, integer: false },
  probeTimeoutMs: { min: 1, max: 3_600_000, integer: false },
  indirectChecks: { min: 0, max: 64, integer: true },
  suspicionMult: { min: 1, max: 1000, integer: true },
  suspicionMaxTimeoutMult: { min: 1, max: 1000, integer: true },
  retransmitMult: { min: 1, max: 1000, integer: true },
  gossipIntervalMs: { min: 1, max: 3_600_000, integer: false },
  gossipNodes: { min: 1, max: 64, integer: true },
  pushPullIntervalMs: { min: 1, max: 86_400_000, integer: false },
  awarenessMaxMultiplier: { min: 1, max: 1000, integer: true },
  gossipToTheDeadMs: { min: 0, max: 86_400_000, integer: false },
  packetBytesMax: { min: 576, max: 65_507, integer: true },
  reconnectIntervalMs: { min: 1, max: 86_400_000, integer: false },
  hostSilenceMs: { min: 0, max: 3_600_000, integer: false },
  reconnectTimeoutMs: { min: 0, max: 31_536_000_000, integer: false },
};

/** Fields to set alongside `key = value` so that the probe timeout stays within the probe interval. */
function companions(key: keyof SwimConfig, value: number): Partial<SwimConfig> {
  if (key === 'probeIntervalMs' && value < lan.probeTimeoutMs) return { probeTimeoutMs: value };
  if (key === 'probeTimeoutMs' && value > lan.probeIntervalMs) return { probeIntervalMs: value };
  return {};
}

const swimKeys = Object.keys(SWIM_FIELDS) as (keyof SwimConfig)[];

const swimInvalidRows = swimKeys.flatMap((key) => {
  const { min, max, integer } = SWIM_FIELDS[key];
  const range = `${integer ? 'an integer' : 'a number'} >= ${min} and <= ${max}`;
  const values: unknown[] = [
    integer ? min - 1 : min - 0.001,
    integer ? max + 1 : max + 0.001,
    -1,
    ...NON_FINITE,
    String(min),
  ];
  if (integer) values.push(min + 0.5, max - 0.5);
  return values.map((value) => ({ key, value, range, label: shown(value) }));
});

const swimValidRows = swimKeys.flatMap((key) => {
  const { min, max, integer } = SWIM_FIELDS[key];
  const values = [min, max];
  if (!integer) values.push(min + 0.5);
  return values.map((value) => ({ key, value }));
});

const entryPoints = [
  { name: 'resolveSwimConfig', run: (partial: Partial<SwimConfig>) => resolveSwimConfig(partial, lan) },
  { name: 'expectedTiming', run: (partial: Partial<SwimConfig>) => expectedTiming(partial, 10) },
];

describe('SwimConfig fields', () => {
  it('are exactly the fields this table covers (add the range of a new field to SWIM_FIELDS)', () => {
    expect([...SWIM_CONFIG_KEYS].sort()).toEqual([...swimKeys].sort());
    expect(Object.keys(lan).sort()).toEqual([...swimKeys].sort());
  });

  describe.each(entryPoints)('through $name', ({ run }) => {
    it.each(swimInvalidRows)('rejects $key = $label', ({ key, value, range }) => {
      const e = expectOptionError(() => run({ [key]: value } as Partial<SwimConfig>), key);
      expect(e.message).toContain('SwimConfig');
      expect(e.message).toContain(range);
      expect(e.message).toContain(`got ${shown(value)}`);
    });

    it.each(swimValidRows)('accepts $key = $value', ({ key, value }) => {
      expect(() => run({ [key]: value, ...companions(key, value) })).not.toThrow();
    });

    it.each(['probeInterval', 'probeIntervalMS', 'timeoutMs', 'clusterSize'])(
      'rejects the unknown field %s',
      (key) => {
        const e = expectOptionError(() => run({ [key]: 1 } as never), key, 'FDKIT_UNKNOWN_OPTION');
        expect(e.message).toContain('probeIntervalMs'); // the known fields are listed
      },
    );

    it.each([
      { partial: { probeTimeoutMs: 1001 } },
      { partial: { probeIntervalMs: 499 } },
      { partial: { probeIntervalMs: 1, probeTimeoutMs: 1.5 } },
      { partial: { probeIntervalMs: 3_599_999, probeTimeoutMs: 3_600_000 } },
    ])('rejects probeTimeoutMs > probeIntervalMs: $partial', ({ partial }) => {
      const e = expectOptionError(() => run(partial), 'probeTimeoutMs');
      expect(e.message).toContain('probeIntervalMs');
    });

    it.each(swimKeys)(
      'rejects %s = null with FDKIT_INVALID_OPTION (null does not mean the default)',
      (key) => {
        const e = expectOptionError(() => run({ [key]: null } as never), key, 'FDKIT_INVALID_OPTION');
        expect(e.message).toContain('SwimConfig');
        expect(e.message).toContain('null');
      },
    );

    it.each([null, 5, 'lan'])('rejects %s as the configuration', (partial) => {
      expectOptionError(() => run(partial as never), '(options)');
    });

    it('accepts probeTimeoutMs === probeIntervalMs', () => {
      expect(() => run({ probeIntervalMs: 500 })).not.toThrow();
      expect(() => run({ probeIntervalMs: 1, probeTimeoutMs: 1 })).not.toThrow();
    });
  });

  it.each(swimValidRows)('resolveSwimConfig takes $key = $value into the result', ({ key, value }) => {
    const config = resolveSwimConfig({ [key]: value, ...companions(key, value) }, lan);
    expect(config[key]).toBe(value);
    expect(Object.isFrozen(config)).toBe(true);
    // the other fields come from the base
    for (const other of swimKeys) {
      if (other !== key && !(other in companions(key, value))) expect(config[other]).toBe(lan[other]);
    }
  });

  it('resolveSwimConfig validates the base as well as the overrides', () => {
    expectOptionError(() => resolveSwimConfig({}, { ...lan, gossipNodes: 0 }), 'gossipNodes');
    expectOptionError(() => resolveSwimConfig({}, { ...lan, gossipNodes: null } as never), 'gossipNodes');
    expectOptionError(() => resolveSwimConfig({}, { ...lan, probeTimeoutMs: 2000 }), 'probeTimeoutMs');
    // a valid override repairs an invalid base value
    expect(resolveSwimConfig({ gossipNodes: 2 }, { ...lan, gossipNodes: 0 }).gossipNodes).toBe(2);
  });

  it('expectedTiming uses the fields it is given', () => {
    // n = 10: suspicionMin = suspicionMult × max(1, log10 10) × probe interval
    expect(expectedTiming({ suspicionMult: 1000 }, 10).suspicionMinMs).toBe(1000 * 1000);
    // lan's suspicionMult is 6
    expect(expectedTiming({ probeIntervalMs: 1, probeTimeoutMs: 1 }, 10).suspicionMinMs).toBe(6);
    expect(expectedTiming({ suspicionMaxTimeoutMult: 1 }, 10).suspicionMaxMs).toBe(6000);
    expect(expectedTiming({ retransmitMult: 1000 }, 10).retransmitLimit).toBe(2000);
  });
});
