/** The package version, from package.json beside `dist/` (or `src/` under tsx). */
import { readFileSync } from 'node:fs';

/** The `version` field of package.json, or `unknown`. */
export function packageVersion(): string {
  const pkg: unknown = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  return typeof pkg === 'object' && pkg !== null && 'version' in pkg ? String(pkg.version) : 'unknown';
}
