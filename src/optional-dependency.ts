/** What the optional peer dependencies' loaders share (`etcd3` for leases, `prom-client` for metrics). */

/** Whether `error` is the loader's "package not installed", as opposed to a package that failed to load. */
export function isModuleNotFound(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
}
