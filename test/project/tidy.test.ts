import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The sans-I/O rule of docs/design.md, enforced: only src/runtime/system.ts may read the host's time, schedule
 * host timers or draw host randomness. Everything else gets a Clock and a seeded Random.
 */
const ROOT = new URL('../..', import.meta.url).pathname;
const ALLOWED = 'src/runtime/system.ts';
/**
 * The status page's clock: browser JavaScript held in a string, which Node never runs. The page's reads
 * of wall time and its timers are kept to this one file, so that the exception stays one file wide.
 */
const BROWSER_CLOCK = 'src/http/page/script-clock.ts';
const FORBIDDEN = [
  /\bDate\.now\s*\(/,
  /\bnew Date\s*\(\s*\)/,
  /\bperformance\.now\s*\(/,
  /\bMath\.random\s*\(/,
  /\bsetTimeout\s*\(/,
  /\bsetInterval\s*\(/,
  /\bsetImmediate\s*\(/,
  /\bprocess\.hrtime\b/,
  /\bcrypto\.random/,
  /\brandomBytes\s*\(/,
];

/** The code of a file without its comments, which may name the forbidden calls to explain the rule. */
function code(file: string): string {
  return readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|\s)\/\/.*$/gm, '$1');
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

describe('tidy', () => {
  it('finds the allowed file, so the scan below looks where it should', () => {
    const files = sourceFiles(join(ROOT, 'src')).map((f) => relative(ROOT, f));
    expect(files).toContain(ALLOWED);
    expect(files.length).toBeGreaterThan(10);
  });

  it('no source file outside the runtime reads host time, timers or randomness', () => {
    const offenders: string[] = [];
    for (const file of sourceFiles(join(ROOT, 'src'))) {
      const rel = relative(ROOT, file);
      if (rel === ALLOWED || rel === BROWSER_CLOCK) continue;
      const text = code(file);
      for (const pattern of FORBIDDEN) if (pattern.test(text)) offenders.push(`${rel}: ${pattern.source}`);
    }
    expect(offenders).toEqual([]);
  });

  it('excuses in the browser clock only a string of browser code, nothing Node would run', () => {
    const text = code(join(ROOT, BROWSER_CLOCK)).trim();
    expect(text).toMatch(/^export const [A-Z_]+ = `[^`]*`;$/);
    expect(text).toMatch(/\bDate\.now\s*\(/);
  });

  it('the protocol layers import nothing from Node: no network, no timers, no wall time', () => {
    const offenders: string[] = [];
    for (const layer of ['detector', 'swim', 'heartbeat', 'sim']) {
      for (const file of sourceFiles(join(ROOT, 'src', layer))) {
        if (/from\s+'node:/.test(code(file))) offenders.push(relative(ROOT, file));
      }
    }
    expect(offenders).toEqual([]);
  });

  it("the split-brain resolver's core imports nothing from Node: only its SplitBrainResolver wrapper may", () => {
    const pure = sourceFiles(join(ROOT, 'src', 'downing')).filter(
      (f) => !f.endsWith('split-brain-resolver.ts'),
    );
    expect(pure.length).toBeGreaterThanOrEqual(3);
    const offenders = pure
      .filter((file) => /from\s+'node:|runtime\/system\.js'/.test(code(file)))
      .map((file) => relative(ROOT, file));
    expect(offenders).toEqual([]);
  });

  it("the leader hint's core imports nothing from Node either: only its LeaderHint wrapper may", () => {
    const pure = sourceFiles(join(ROOT, 'src', 'omega')).filter((f) => !f.endsWith('leader-hint.ts'));
    expect(pure.length).toBeGreaterThanOrEqual(3);
    const offenders = pure
      .filter((file) => /from\s+'node:|runtime\/system\.js'/.test(code(file)))
      .map((file) => relative(ROOT, file));
    expect(offenders).toEqual([]);
  });

  it('no source file uses the any type', () => {
    const offenders = sourceFiles(join(ROOT, 'src'))
      .filter((file) => /(:\s*any\b|as any\b|<any>)/.test(code(file)))
      .map((file) => relative(ROOT, file));
    expect(offenders).toEqual([]);
  });
});
