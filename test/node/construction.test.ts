/**
 * What `createNode` and `createHeartbeatMonitor` refuse at once, before a socket exists: the bind and
 * advertise addresses' format and the transport's own numbers, which the transport alone used to check
 * once start() called it; and the form of every such message, which names the public function and the
 * option and shows the value received with its type.
 */
import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors.js';
import { createHeartbeatMonitor } from '../../src/node/heartbeat-monitor.js';
import { createNode } from '../../src/node/node.js';
import { thrown } from '../support/node-harness.js';

const EXAMPLES = 'e.g. 127.0.0.1:7946, [::1]:7946 or node1.example.com:7946';

/** The message each bad `bind` gets, after `<owner>: option bind must be host:port, got `. */
const BAD_BINDS: [string, string][] = [
  ['localhost', `"localhost" (a string): the port is missing; ${EXAMPLES}`],
  ['1.2.3.4:99999', '"1.2.3.4:99999" (a string): the port must be an integer from 1 to 65535, got "99999"'],
  [':80', '":80" (a string): the host is missing; use 0.0.0.0 or [::] to bind every interface'],
];

const factories = {
  createNode: (options: Record<string, unknown>) => createNode(options as never),
  createHeartbeatMonitor: (options: Record<string, unknown>) => createHeartbeatMonitor(options as never),
} as const;

/** The `InvalidOptionError` that `create(options)` throws, checked for its code and option. */
function refused(create: () => unknown, option: string): InvalidOptionError {
  const error = thrown(create);
  expect(error).toBeInstanceOf(InvalidOptionError);
  expect(error).toMatchObject({ code: 'FDKIT_INVALID_OPTION', option });
  return error as InvalidOptionError;
}

describe.each(Object.keys(factories) as (keyof typeof factories)[])('%s', (owner) => {
  const create = factories[owner];
  // A transport factory that fails the test if reached: construction must not need one.
  const transport = () => {
    throw new Error('the transport was asked for at construction');
  };

  it.each(BAD_BINDS)('refuses bind %j at construction, naming the problem', (bind, shown) => {
    // Catches a bind left to the transport (no throw here, a NetworkError at start() instead), and a
    // message that loses the value or its type.
    const error = refused(() => create({ bind, transport }), 'bind');
    expect(error.message).toBe(`${owner}: option bind must be host:port, got ${shown}`);
  });

  it('refuses a bind that is not a string, showing its type', () => {
    // Catches a check that only parses strings and lets a number through to the transport.
    const error = refused(() => create({ bind: 7946, transport }), 'bind');
    expect(error.message).toBe(`${owner}: option bind must be host:port, got 7946 (a number): not a string`);
  });

  it('refuses a bad advertise address at construction', () => {
    // Catches advertise checked only by the transport, after binding.
    const error = refused(() => create({ advertise: '10.0.0.1', transport }), 'advertise');
    expect(error.message).toBe(
      `${owner}: option advertise must be host:port, got "10.0.0.1" (a string): the port is missing; ${EXAMPLES}`,
    );
  });

  it('accepts port 0 for bind and advertise, as the transport does', () => {
    // Catches a construction check stricter than the transport's (port 0 binds an ephemeral port, and
    // in advertise means the bound one).
    expect(() => create({ bind: '127.0.0.1:0', advertise: '10.0.0.1:0', transport })).not.toThrow();
  });

  it('shows a number given as a string as a string', () => {
    // Catches the older form of the message, `got "5"`, which reads the same as a number in a log.
    const option = owner === 'createNode' ? 'leaveTimeoutMs' : 'intervalMs';
    const error = refused(() => create({ [option]: '5', transport }), option);
    expect(error.message).toMatch(
      new RegExp(`^${owner}: option ${option} must be a number .*, got "5" \\(a string\\)$`),
    );
  });
});

describe('createNode', () => {
  it('checks trackPhi and adaptiveProbeTimeout at construction, not when start() builds the core', () => {
    // Catches options only the core checks: a transport that must not be reached shows the refusal
    // comes before start().
    const trackPhi = refused(() => createNode({ trackPhi: 'no' as never }), 'trackPhi');
    expect(trackPhi.message).toBe('createNode: option trackPhi must be a boolean, got "no" (a string)');
    const adaptive = refused(
      () => createNode({ adaptiveProbeTimeout: { phi: 100 } }),
      'adaptiveProbeTimeout.phi',
    );
    expect(adaptive.message).toBe(
      'createNode: option adaptiveProbeTimeout.phi must be a number >= 0.5 and <= 30, got 100 (a number)',
    );
  });

  it('names a field of config by its path, under createNode', () => {
    // Catches the configuration checked under its own name (`SwimConfig: option probeIntervalMs`),
    // which names neither the function called nor the option that holds the field.
    const error = refused(
      () => createNode({ config: { probeIntervalMs: '500' as never } }),
      'config.probeIntervalMs',
    );
    expect(error.message).toMatch(
      /^createNode: option config\.probeIntervalMs must be .*, got "500" \(a string\)$/,
    );
    const unknown = thrown(() => createNode({ config: { probeIntervalMS: 500 } as never }));
    expect(unknown).toMatchObject({ code: 'FDKIT_UNKNOWN_OPTION', option: 'config.probeIntervalMS' });
  });

  it('refuses a transport number at construction, naming createNode', () => {
    // Catches the transport's numbers checked only when start() hands them to the transport, whose
    // message names the transport, not the function the caller called.
    const error = refused(() => createNode({ maxInboundStreams: '8' as never }), 'maxInboundStreams');
    expect(error.message).toBe(
      'createNode: option maxInboundStreams must be an integer >= 1 and <= 65536, got "8" (a string)',
    );
  });
});
