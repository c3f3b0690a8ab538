/**
 * What `bench/peers/run.ts` needs before it starts anything: Debian's `serf`, `golang-go` and
 * `golang-github-hashicorp-memberlist-dev` (installed with apt-get when missing, which needs root), and
 * the Go memberlist agent of `bench/peers/memberlist-agent/` built offline against Debian's packaged
 * sources.
 *
 * The offline build: Debian installs Go libraries as plain source trees under /usr/share/gocode/src
 * (memberlist 0.2.2 and every package it imports: go-metrics, btree, go-msgpack, go-multierror,
 * go-sockaddr, miekg/dns; sean-/seed is vendored inside memberlist). Go 1.19 still builds in GOPATH
 * mode, which needs no go.mod and no module download: `GO111MODULE=off GOPATH=/usr/share/gocode`, with
 * `GOPROXY=off` and `GOFLAGS=-mod=` cleared so that nothing can reach for the network. The binary and
 * Go's build cache go to a temporary directory (`$TMPDIR/fdkit-peers-build`), rebuilt when main.go is
 * newer than the binary.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GOPATH, goBuildOffline } from '../../test/support/go-build.js';
import { progress } from '../support/report.js';

const MEMBERLIST_SRC = `${GOPATH}/src/github.com/hashicorp/memberlist`;
const PATH_WITH_SBIN = `${process.env.PATH ?? ''}:/usr/sbin:/sbin`;

/** The Debian packages, and how the bench tells each is there. */
const PACKAGES = [
  { name: 'serf', present: () => which('serf') !== undefined },
  { name: 'golang-go', present: () => which('go') !== undefined },
  { name: 'golang-github-hashicorp-memberlist-dev', present: () => existsSync(MEMBERLIST_SRC) },
] as const;

function which(command: string): string | undefined {
  const r = spawnSync('sh', ['-c', `command -v ${command}`], {
    encoding: 'utf8',
    env: { ...process.env, PATH: PATH_WITH_SBIN },
  });
  const path = r.stdout?.trim();
  return r.status === 0 && path !== '' ? path : undefined;
}

function apt(args: readonly string[]): boolean {
  const r = spawnSync('apt-get', args, {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive', PATH: PATH_WITH_SBIN },
    timeout: 600_000,
  });
  return r.status === 0;
}

/**
 * Installs the missing Debian packages (`apt-get install -y ...`, after `apt-get update` when the first
 * attempt fails). Throws with what to do when it cannot.
 */
export function ensurePackages(): void {
  const missing = PACKAGES.filter((p) => !p.present()).map((p) => p.name);
  if (missing.length === 0) return;
  progress(`installing missing Debian packages: apt-get install -y ${missing.join(' ')}`);
  if (process.getuid?.() !== 0) {
    throw new Error(`missing Debian packages (${missing.join(', ')}); install them as root, then run again`);
  }
  if (!apt(['install', '-y', '-q', ...missing])) {
    progress('apt-get install failed; running apt-get update and trying once more');
    if (!apt(['update', '-q']) || !apt(['install', '-y', '-q', ...missing])) {
      throw new Error(`apt-get install -y ${missing.join(' ')} failed`);
    }
  }
  const still = PACKAGES.filter((p) => !p.present()).map((p) => p.name);
  if (still.length > 0) throw new Error(`still missing after apt-get install: ${still.join(', ')}`);
}

/** Versions of what runs, for the report. */
export function versions(): Record<string, string> {
  // The default format: package, a tab, version.
  const q = spawnSync('dpkg-query', ['-W', ...PACKAGES.map((p) => p.name)], { encoding: 'utf8' });
  const out: Record<string, string> = {};
  for (const l of (q.stdout ?? '').split('\n')) {
    const [name, version] = l.split('\t');
    if (name && version) out[name] = version;
  }
  const go = spawnSync('go', ['version'], { encoding: 'utf8' }).stdout?.trim();
  if (go) out.go = go.replace(/^go version /, '');
  return out;
}

const AGENT_DIR = fileURLToPath(new URL('./memberlist-agent/', import.meta.url));

/**
 * Builds `memberlist-agent` offline (see the file comment) unless an up-to-date binary is there; returns
 * its path. Throws with Go's output when the build fails.
 */
export function buildMemberlistAgent(): string {
  const dir = join(tmpdir(), 'fdkit-peers-build');
  const binary = join(dir, 'memberlist-agent');
  const source = join(AGENT_DIR, 'main.go');
  if (existsSync(binary) && statSync(binary).mtimeMs >= statSync(source).mtimeMs) return binary;
  mkdirSync(dir, { recursive: true });
  progress(`building the memberlist agent offline against ${GOPATH} (GO111MODULE=off, GOPROXY=off)`);
  goBuildOffline(AGENT_DIR, binary, dir, 'bench/peers/memberlist-agent');
  return binary;
}
