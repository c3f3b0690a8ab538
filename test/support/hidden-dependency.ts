/**
 * A child `node` that runs a script with one package hidden, as if it were not installed: a module
 * resolution hook answers its import with ERR_MODULE_NOT_FOUND. For the tests of fdkit's optional peer
 * dependencies (etcd3, ioredis, prom-client): the build must load without them, and only the function
 * that needs one may fail.
 */
import { spawnSync } from 'node:child_process';

/** What the child printed and how it ended. */
export interface ChildRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function hiding(pkg: string): string {
  const hooks = `export async function resolve(specifier, context, next) {
  if (specifier === ${JSON.stringify(pkg)}) {
    const error = new Error(${JSON.stringify(`Cannot find package '${pkg}'`)});
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  }
  return next(specifier, context);
}`;
  return `import { register } from 'node:module';
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;
}

/** Runs `script` as an ES module in a child node, with `hidden` not installed when given. */
export function runNode(script: string, hidden?: string): ChildRun {
  const hook =
    hidden === undefined ? [] : ['--import', `data:text/javascript,${encodeURIComponent(hiding(hidden))}`];
  const result = spawnSync(process.execPath, [...hook, '--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
