/**
 * The Go agent's stdout lines, read by go-agent-lines.ts: lines the agent printed in a run (copied from
 * its output), and lines that are wrong in one field each.
 */
import { describe, expect, it } from 'vitest';
import { parseGoLine } from './go-agent-lines.js';

const bytes = (s: string): Uint8Array => new Uint8Array(Buffer.from(s));

describe('parseGoLine', () => {
  it('reads the lines the agent printed', () => {
    expect(
      parseGoLine(
        '{"addr":"127.0.0.1:17946","event":"update","incarnation":2,"member":"a","meta":"aGk=","node":"b",' +
          '"state":"alive","t":1796618390799}',
        'b',
      ),
    ).toEqual({
      t: 1796618390799,
      node: 'b',
      event: 'update',
      member: 'a',
      addr: '127.0.0.1:17946',
      meta: bytes('hi'),
      state: 'alive',
      incarnation: 2,
    });
    expect(
      parseGoLine('{"addr":"127.0.0.1:17947","event":"ready","joined":1,"node":"b","t":5}', 'b'),
    ).toEqual({
      t: 5,
      node: 'b',
      event: 'ready',
      addr: '127.0.0.1:17947',
      joined: 1,
    });
    expect(
      parseGoLine('{"event":"remote-state","join":true,"node":"a","state":"Z286Yg==","t":5}', 'a'),
    ).toEqual({
      t: 5,
      node: 'a',
      event: 'remote-state',
      state: bytes('go:b'),
      join: true,
    });
    expect(
      parseGoLine(
        '{"event":"members","members":[{"addr":"127.0.0.1:17946","incarnation":2,"meta":"","name":"a",' +
          '"state":"suspect"}],"node":"a","t":5}',
        'a',
      ),
    ).toEqual({
      t: 5,
      node: 'a',
      event: 'members',
      members: [
        { name: 'a', addr: '127.0.0.1:17946', meta: new Uint8Array(), state: 'suspect', incarnation: 2 },
      ],
    });
    expect(parseGoLine('{"event":"members","members":null,"node":"a","t":5}', 'a')).toMatchObject({
      members: [],
    });
    expect(parseGoLine('{"event":"message","node":"b","payload":"eHg=","t":5}', 'b')).toEqual({
      t: 5,
      node: 'b',
      event: 'message',
      payload: bytes('xx'),
    });
    expect(
      parseGoLine(
        '{"command":"send","error":"no live member \\"z\\"","event":"error","node":"a","t":5}',
        'a',
      ),
    ).toEqual({ t: 5, node: 'a', event: 'error', error: 'no live member "z"', command: 'send' });
    expect(parseGoLine('{"event":"left","node":"a","t":5}', 'a')).toEqual({ t: 5, node: 'a', event: 'left' });
  });

  it('leaves out an incarnation the agent could not read', () => {
    const e = parseGoLine(
      '{"addr":"127.0.0.1:1","event":"leave","member":"c","meta":"","node":"a","state":"unknown","t":5}',
      'a',
    );
    expect(e).toMatchObject({ event: 'leave', state: 'unknown' });
    expect(e).not.toHaveProperty('incarnation');
  });

  it.each([
    ['not json', /JSON/],
    ['[1]', /not a JSON object/],
    ['{"event":"left","node":"x","t":5}', /node is "x", not "a"/],
    ['{"event":"left","node":"a","t":-1}', /t is not/],
    ['{"event":"left","node":"a"}', /t is not/],
    ['{"event":"gone","node":"a","t":5}', /event "gone" is unknown/],
    ['{"event":"message","node":"a","payload":"e@g=","t":5}', /payload is not base64/],
    ['{"event":"message","node":"a","payload":"eHg","t":5}', /payload is not base64/],
    ['{"addr":"x","event":"join","member":"c","meta":"","node":"a","state":"gone","t":5}', /state "gone"/],
    [
      '{"addr":"x","event":"join","incarnation":1.5,"member":"c","meta":"","node":"a","state":"alive","t":5}',
      /incarnation/,
    ],
    ['{"event":"remote-state","join":"yes","node":"a","state":"","t":5}', /join is not a boolean/],
    ['{"event":"members","members":{},"node":"a","t":5}', /members is not an array/],
    ['{"event":"ack","node":"a","t":5}', /command is not a string/],
  ])('rejects %s', (line, problem) => {
    expect(parseGoLine(line, 'a')).toMatch(problem);
  });
});
