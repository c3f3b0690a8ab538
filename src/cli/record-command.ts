/**
 * `fdkit record`: heartbeat arrival times between real members, as trace files. This member binds
 * `--bind`, heartbeats to every `--peer` and records their heartbeats for `--seconds` (or until SIGINT or
 * SIGTERM, which end the recording early and still write it). Peers are other `fdkit record` processes or
 * heartbeat monitors that list this one. Progress and the peers' transitions go to stderr; stdout says
 * which files were written.
 */
import { writeFileSync } from 'node:fs';
import { InvalidOptionError, NetworkError } from '../errors.js';
import { recordTraces } from '../node/trace-recording.js';
import { formatTrace } from '../trace/trace-format.js';
import { normalizeAddress } from '../transport/address.js';
import { commandFlags, listFlag, numberFlag, stringFlag, UsageError } from './args.js';
import type { CommandIo } from './trace-command.js';
import { formatDuration } from './tune/format.js';

const WEEK_S = 604_800;
/** The placeholder `--out` needs when several peers are recorded. */
const PEER_PLACEHOLDER = '{peer}';

/** A peer's address as part of a file name: `127.0.0.1:7001` → `127.0.0.1_7001`. */
function fileSafe(address: string): string {
  return address.replace(/[^A-Za-z0-9._-]/g, '_');
}

/** Runs `fdkit record` until its duration ends or `signal` aborts; resolves with the exit status. */
export async function runRecordCommand(
  argv: readonly string[],
  io: CommandIo,
  signal: AbortSignal,
): Promise<number> {
  const command = 'record';
  const flags = commandFlags(`fdkit ${command}`, argv, {
    bind: { kind: 'string' },
    peer: { kind: 'list' },
    seconds: { kind: 'number', min: 0.001, max: WEEK_S },
    out: { kind: 'string' },
    'interval-ms': { kind: 'number', min: 1, max: 3_600_000 },
    name: { kind: 'string' },
  });
  const bind = stringFlag(flags, 'bind');
  const out = stringFlag(flags, 'out');
  const peers = listFlag(flags, 'peer');
  if (bind === undefined || out === undefined || peers.length === 0 || !flags.has('seconds')) {
    throw new UsageError(
      'fdkit record: --bind HOST:PORT, --peer HOST:PORT (one or more), --seconds S and --out FILE are required',
    );
  }
  let normalized: string[];
  try {
    normalizeAddress(bind, { label: '--bind', allowPortZero: true });
    normalized = peers.map((p) => normalizeAddress(p, { label: '--peer' }));
  } catch (error) {
    if (error instanceof NetworkError) throw new UsageError(`fdkit record: ${error.message}`);
    throw error;
  }
  if (new Set(normalized).size !== normalized.length)
    throw new UsageError('fdkit record: a --peer is given twice');
  if (normalized.length > 1 && !out.includes(PEER_PLACEHOLDER)) {
    throw new UsageError(
      `fdkit record: with several peers, --out must contain ${PEER_PLACEHOLDER}, replaced by each peer's address (e.g. trace-${PEER_PLACEHOLDER}.jsonl)`,
    );
  }
  const seconds = numberFlag(flags, 'seconds', 0);
  const name = stringFlag(flags, 'name');
  const progressEveryMs = Math.min(10_000, Math.max(1000, (seconds * 1000) / 6));
  let traces: Awaited<ReturnType<typeof recordTraces>>;
  try {
    traces = await recordTraces({
      bind,
      peers: normalized,
      durationMs: seconds * 1000,
      intervalMs: numberFlag(flags, 'interval-ms', 1000),
      signal,
      progressEveryMs,
      ...(name === undefined ? {} : { name }),
      onListening: (address) =>
        io.stderr(
          `fdkit record: listening on ${address}; recording ${normalized.join(', ')} for ${formatDuration(seconds * 1000)}\n`,
        ),
      onProgress: (p) => {
        const peersText = p.peers.map((s) => `${s.name ?? s.peer} ${s.heartbeats}`).join(', ');
        io.stderr(
          `fdkit record: ${(p.elapsedMs / 1000).toFixed(0)}/${(p.durationMs / 1000).toFixed(0)} s, heartbeats: ${peersText}\n`,
        );
      },
      onEvent: (e) => io.stderr(`fdkit record: ${e.member} (${e.address}) ${e.type} (${e.cause})\n`),
    });
  } catch (error) {
    if (error instanceof NetworkError || error instanceof InvalidOptionError) {
      io.stderr(`fdkit record: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
  for (const trace of traces) {
    const peer = trace.header.recording?.peer ?? '';
    const file = out.replaceAll(PEER_PLACEHOLDER, fileSafe(peer));
    writeFileSync(file, formatTrace(trace));
    const peerName = trace.header.recording?.peerName;
    io.stdout(
      `wrote ${file}: ${trace.arrivals.length} heartbeats from ${peer}${peerName === undefined ? '' : ` (${peerName})`} over ${formatDuration(trace.header.durationMs)}\n`,
    );
    if (trace.arrivals.length === 0) io.stderr(`fdkit record: no heartbeat came from ${peer}\n`);
  }
  return 0;
}
