/**
 * Component loggers (`src/runtime/logger.ts`): a logger's own `child` when it has one, otherwise a
 * wrapper that merges the bindings into every line's fields; the silent default; and the description of
 * a received value that the option checks print.
 */
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { describeReceived } from '../../src/options.js';
import { childLogger, type Logger, silentLogger } from '../../src/runtime/logger.js';

/** A logger without `child` that keeps every call as `[level, fields, message]`. */
function recording(): { logger: Logger; lines: [string, object, string][] } {
  const lines: [string, object, string][] = [];
  const at =
    (level: string) =>
    (fields: object, message: string): void => {
      lines.push([level, fields, message]);
    };
  return { logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }, lines };
}

describe('childLogger', () => {
  it('merges the bindings into the fields of every level of a logger without child', () => {
    // Catches a wrapper that drops the bindings, or that forwards a level to another level's method.
    const { logger, lines } = recording();
    const log = childLogger(logger, { component: 'node' });
    log.debug({ a: 1 }, 'd');
    log.info({ b: 2 }, 'i');
    log.warn({}, 'w');
    log.error({ c: 3 }, 'e');
    expect(lines).toEqual([
      ['debug', { component: 'node', a: 1 }, 'd'],
      ['info', { component: 'node', b: 2 }, 'i'],
      ['warn', { component: 'node' }, 'w'],
      ['error', { component: 'node', c: 3 }, 'e'],
    ]);
  });

  it("lets a line's own field win over a binding of the same name, as pino does", () => {
    // Catches the spread in the wrong order: the binding would hide what the line said.
    const { logger, lines } = recording();
    childLogger(logger, { component: 'node', peer: 'x' }).info({ peer: 'y' }, 'm');
    expect(lines).toEqual([['info', { component: 'node', peer: 'y' }, 'm']]);
  });

  it("a child of the wrapper adds its bindings to the parent's, and overrides them", () => {
    // Catches a child of the wrapper that forgets the parent's bindings (`name` would be lost) or lets
    // them override its own (`component` would stay `node`).
    const { logger, lines } = recording();
    const node = childLogger(logger, { component: 'node', name: 'n1' });
    const transport = childLogger(node, { component: 'transport' });
    transport.debug({ reason: 'malformed' }, 'dropped');
    expect(lines).toEqual([
      ['debug', { component: 'transport', name: 'n1', reason: 'malformed' }, 'dropped'],
    ]);
  });

  it('calls the method on the logger itself, looked up at each line', () => {
    // Catches a wrapper that calls a method detached from its logger (a method that reads `this`, as
    // pino's do, would throw), and one that captured the methods once: a spy installed afterwards, as
    // the node tests install on console, would see nothing.
    const seen: unknown[] = [];
    const logger = {
      prefix: 'p',
      debug(this: { prefix: string }, fields: object, message: string) {
        seen.push([this.prefix, fields, message]);
      },
      info() {},
      warn() {},
      error() {},
    };
    const log = childLogger(logger, { component: 'lease' });
    log.debug({}, 'first');
    const later = vi.fn();
    logger.info = later;
    log.info({ x: 1 }, 'second');
    expect(seen).toEqual([['p', { component: 'lease' }, 'first']]);
    expect(later).toHaveBeenCalledWith({ component: 'lease', x: 1 }, 'second');
  });

  it('wraps only the levels a narrower logger has', () => {
    // Catches a wrapper that adds methods the logger lacks (they would throw when called).
    const debug = vi.fn();
    const warn = vi.fn();
    const log = childLogger<'debug' | 'warn'>({ debug, warn }, { component: 'transport' });
    expect(Object.keys(log).sort()).toEqual(['child', 'debug', 'warn']);
    log.warn({}, 'w');
    expect(warn).toHaveBeenCalledWith({ component: 'transport' }, 'w');
  });

  it("uses a pino logger's own child, whose lines carry the bindings", () => {
    // Catches a helper that always wraps: pino's child is what keeps its serializers and its level
    // per child, and what its users expect to be called.
    const written: string[] = [];
    const logger = pino(
      { level: 'info', base: null, timestamp: false },
      { write: (s: string) => written.push(s) },
    );
    const child = vi.spyOn(logger, 'child');
    childLogger(logger, { component: 'heartbeat' }).info({ peer: 'a' }, 'started');
    expect(child).toHaveBeenCalledWith({ component: 'heartbeat' });
    expect(written.map((line) => JSON.parse(line))).toEqual([
      { level: 30, component: 'heartbeat', peer: 'a', msg: 'started' },
    ]);
  });

  it('the silent default takes every level and a child, and is its own child', () => {
    // Catches a default that lacks a level (the first line at it would throw a TypeError).
    for (const level of ['debug', 'info', 'warn', 'error'] as const) {
      expect(() => silentLogger[level]({}, 'nothing')).not.toThrow();
    }
    expect(childLogger(silentLogger, { component: 'node' })).toBe(silentLogger);
  });
});

describe('describeReceived', () => {
  it.each([
    ['5', '"5" (a string)'],
    [5, '5 (a number)'],
    [false, 'false (a boolean)'],
    [5n, '5n (a bigint)'],
    [undefined, 'undefined'],
    [null, 'null'],
    [[1], 'an array'],
    [{ debug: 1 }, 'an object'],
    [() => 1, 'a function'],
  ])('describes %s with its type', (value, shown) => {
    // Catches a type left out (`got 5` for a string would send the reader looking for a number).
    expect(describeReceived(value)).toBe(shown);
  });
});
