/**
 * The `prom-client` package, loaded when metrics are asked for. It is an optional peer dependency: most
 * users of the detectors and the membership never export Prometheus metrics, and an `import 'fdkit'`
 * should not load a metrics library (and its default registry) for them. A missing package becomes a
 * typed error that says what to install.
 */
import { MissingDependencyError } from '../errors.js';
import { isModuleNotFound } from '../optional-dependency.js';

/** The module namespace of `prom-client`. */
export type PromClient = typeof import('prom-client');

/** The version range fdkit is tested with, for the install hint (package.json's peerDependencies). */
const PROM_CLIENT_RANGE = '^15.1.0';

/**
 * Imports `prom-client`, or throws a {@link MissingDependencyError} when it is not installed, its message
 * naming `owner` (`fdkitMetrics`, `createNode: option metrics`) as what needs it.
 */
export async function loadPromClient(owner: string): Promise<PromClient> {
  try {
    return await import('prom-client');
  } catch (error) {
    if (!isModuleNotFound(error)) throw error;
    throw new MissingDependencyError(
      'prom-client',
      `${owner} needs the prom-client package, an optional peer dependency of fdkit: npm install prom-client@${PROM_CLIENT_RANGE}`,
      { cause: error },
    );
  }
}
