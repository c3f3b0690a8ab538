/**
 * An offline `go build` against the Go libraries Debian installs as source trees under
 * /usr/share/gocode (memberlist 0.2.2 and what it imports): Go 1.19 in GOPATH mode needs no go.mod and no
 * module download, and `GOPROXY=off` with `GOFLAGS` cleared keeps anything from reaching for the network.
 * Go's build cache goes beside the binary, in a temporary directory.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/** Where Debian puts the Go source trees. */
export const GOPATH = '/usr/share/gocode';

/**
 * Builds the Go program in `sourceDir` into `output`, with Go's cache in `cacheDir`. Throws, naming
 * `what`, with Go's output when the build fails.
 */
export function goBuildOffline(sourceDir: string, output: string, cacheDir: string, what: string): void {
  const r = spawnSync('go', ['build', '-o', output, '.'], {
    cwd: sourceDir,
    encoding: 'utf8',
    timeout: 300_000,
    env: {
      ...process.env,
      GO111MODULE: 'off',
      GOPATH,
      GOPROXY: 'off',
      GOFLAGS: '',
      GOSUMDB: 'off',
      GOCACHE: join(cacheDir, 'gocache'),
    },
  });
  if (r.status !== 0) {
    const why = r.error === undefined ? '' : `${r.error.message}\n`;
    throw new Error(`go build of ${what} failed:\n${why}${r.stderr ?? ''}${r.stdout ?? ''}`);
  }
}
