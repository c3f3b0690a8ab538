/**
 * Options shared by every transport, their defaults with the reason for each, and their validation.
 * Each transport adds its own options on top (see `net-transport.ts`, `memory.ts`).
 */
import { InvalidOptionError, type NetworkError } from '../errors.js';
import { checkKnownKeys, checkNumber, describeReceived } from '../options.js';
import type { Clock } from '../runtime/clock.js';
import { checkLogger, childLogger, type LogBindings, silentLogger } from '../runtime/logger.js';
import { systemClock } from '../runtime/system.js';
import { addressProblem, type HostPort, parseAddress } from './address.js';

/**
 * The part of fdkit's `Logger` a transport uses: any `Logger` fits, a pino logger and `console` too.
 * Transports log at `debug` what they count (drops, send errors) and at `warn` what an operator should
 * see (a handler that throws).
 */
export interface TransportLogger {
  /** Logs what the transport counts anyway (a drop, a send error), with structured `fields`. */
  debug(fields: object, message: string): void;
  /** Logs what an operator should see (a handler that threw), with structured `fields`. */
  warn(fields: object, message: string): void;
  /** A logger that adds `bindings` to every line; the transport logs through one when it can. */
  child?(bindings: LogBindings): TransportLogger;
}

/** Options every transport takes. */
export interface TransportOptions {
  /** `host:port` to bind. Port 0 binds an ephemeral port; `localAddress` then tells which. Required. */
  readonly bind: string;
  /**
   * `host:port` peers should use, when it differs from the bound one (NAT, containers). Port 0 means the
   * bound port. Default: the bound address.
   */
  readonly advertise?: string;
  /** Largest stream payload accepted, in bytes. Default 32 MiB. */
  readonly streamBytesMax?: number;
  /** Time allowed to open a stream connection. Default 10,000 ms. */
  readonly connectTimeoutMs?: number;
  /**
   * Time allowed for one stream frame: the sender's write and confirmation after connecting, and on the
   * receiving side the arrival of each complete frame (so a peer that trickles bytes is cut off). Default
   * 10,000 ms.
   */
  readonly streamTimeoutMs?: number;
  /**
   * Inbound stream connections open at once; more are reset at once. Watches (connections held open so
   * that their peer learns of this process's death, see `Transport.watch`) count too, and may take at
   * most half of them. Default 256.
   */
  readonly maxInboundStreams?: number;
  /** Clock for the timeouts. Default the system clock. */
  readonly clock?: Clock;
  /**
   * Where the transport logs: a pino logger, `console`, or anything with `debug` and `warn`. Every line
   * carries `component: 'transport'`. Silent by default.
   */
  readonly logger?: TransportLogger;
  /**
   * Called for each datagram that could not be sent, with a `NetworkError` of code `FDKIT_SEND_FAILED` or
   * `FDKIT_BAD_ADDRESS`. Must not throw.
   */
  readonly onSendError?: (error: NetworkError) => void;
}

/**
 * Defaults, after memberlist where it has an equivalent:
 * - `streamBytesMax` 32 MiB: a push-pull of 10,000 members with metadata is a few MiB; the limit only
 *   stops a peer (or a stray HTTP client, whose first bytes read as a ~1 GiB length) from exhausting memory.
 * - `connectTimeoutMs`, `streamTimeoutMs` 10 s: memberlist's `TCPTimeout` of its LAN profile.
 * - `maxInboundStreams` 256: twice memberlist's cap of 128 concurrent push-pull requests, leaving room
 *   for user messages.
 */
export const TRANSPORT_DEFAULTS = {
  /** 32 MiB: a push-pull of 10,000 members with metadata is a few MiB. */
  streamBytesMax: 32 * 1024 * 1024,
  /** 10,000 ms, memberlist's `TCPTimeout`. */
  connectTimeoutMs: 10_000,
  /** 10,000 ms, memberlist's `TCPTimeout`. */
  streamTimeoutMs: 10_000,
  /** 256 inbound stream connections open at once. */
  maxInboundStreams: 256,
} as const;

/** The option names of {@link TransportOptions}. */
export const TRANSPORT_OPTION_KEYS = [
  'bind',
  'advertise',
  'streamBytesMax',
  'connectTimeoutMs',
  'streamTimeoutMs',
  'maxInboundStreams',
  'clock',
  'logger',
  'onSendError',
] as const;

/** {@link TransportOptions} validated, with defaults filled in. */
export interface ResolvedTransportOptions {
  readonly bind: HostPort;
  readonly advertise: HostPort | undefined;
  readonly streamBytesMax: number;
  readonly connectTimeoutMs: number;
  readonly streamTimeoutMs: number;
  readonly maxInboundStreams: number;
  readonly clock: Clock;
  readonly logger: TransportLogger;
  readonly onSendError: ((error: NetworkError) => void) | undefined;
}

const HOUR_MS = 3_600_000;

/** The numeric options of {@link TransportOptions}, as given or checked. */
export type TransportNumbers = { readonly [K in keyof typeof TRANSPORT_DEFAULTS]: number };

/**
 * Checks the numeric options of `owner` (a transport, or what passes them on to one, so that a mistake
 * is caught before anything is bound); returns them with the defaults filled in.
 */
export function checkTransportNumbers(owner: string, options: Partial<TransportNumbers>): TransportNumbers {
  const number = (option: keyof typeof TRANSPORT_DEFAULTS, min: number, max: number, integer: boolean) =>
    checkNumber(owner, option, options[option] ?? TRANSPORT_DEFAULTS[option], { min, max, integer });
  return {
    // The frame header holds a 32-bit length, so nothing larger can be announced.
    streamBytesMax: number('streamBytesMax', 1, 0xffff_ffff, true),
    connectTimeoutMs: number('connectTimeoutMs', 1, HOUR_MS, false),
    streamTimeoutMs: number('streamTimeoutMs', 1, HOUR_MS, false),
    maxInboundStreams: number('maxInboundStreams', 1, 65_536, true),
  };
}

/**
 * Checks an address option of `owner` (`bind`, `advertise`; port 0 allowed, as both take it), naming the
 * option and showing the value received in the `InvalidOptionError`: for callers that check it before a
 * transport does.
 */
export function checkAddressOption(owner: string, option: string, value: unknown): void {
  const problem = typeof value === 'string' ? addressProblem(value, { allowPortZero: true }) : 'not a string';
  if (problem === undefined) return;
  throw new InvalidOptionError(
    'FDKIT_INVALID_OPTION',
    option,
    `${owner}: option ${option} must be host:port, got ${describeReceived(value)}: ${problem}`,
  );
}

/**
 * Validates `options` of the transport named `owner`, which also accepts `extraKeys`. Throws an
 * `InvalidOptionError` for a wrong or unknown option and a `NetworkError` `FDKIT_BAD_ADDRESS` for a bad
 * `bind` or `advertise`.
 */
export function resolveTransportOptions(
  owner: string,
  options: TransportOptions,
  extraKeys: readonly string[] = [],
): ResolvedTransportOptions {
  checkKnownKeys(owner, options, [...TRANSPORT_OPTION_KEYS, ...extraKeys]);
  const bind = parseAddress(options.bind, { allowPortZero: true, label: `${owner}: bind address` });
  const advertise =
    options.advertise === undefined
      ? undefined
      : parseAddress(options.advertise, { allowPortZero: true, label: `${owner}: advertise address` });
  const numbers = checkTransportNumbers(owner, options);
  checkLogger(owner, options.logger, ['debug', 'warn']);
  return {
    bind,
    advertise,
    ...numbers,
    clock: options.clock ?? systemClock,
    logger: childLogger<'debug' | 'warn'>(options.logger ?? silentLogger, { component: 'transport' }),
    onSendError: options.onSendError,
  };
}
