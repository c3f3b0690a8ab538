/**
 * The stdout lines of the Go agent (`test/wire/memberlist/go-agent/main.go`, whose file comment lists them),
 * checked and typed. Base64 fields come back as bytes.
 */

/** memberlist's node states as the agent names them; `unknown` when it could not read them. */
export type GoMemberState = 'alive' | 'suspect' | 'dead' | 'left' | 'unknown';

/** What the agent says about a member, on join, leave, update and in `members`. */
export interface GoMember {
  readonly name: string;
  /** `ip:port`. */
  readonly addr: string;
  readonly meta: Uint8Array;
  readonly state: GoMemberState;
  /** Absent when the agent could not read it (see main.go's stateMirror). */
  readonly incarnation?: number;
}

interface Base {
  /** Unix ms, the agent's clock. */
  readonly t: number;
  readonly node: string;
}

/** An EventDelegate call: `member` is the name. */
export interface GoMemberEvent extends Base, Omit<GoMember, 'name'> {
  readonly event: 'join' | 'leave' | 'update';
  readonly member: string;
}

export type GoEvent =
  | (Base & {
      readonly event: 'ready';
      readonly addr: string;
      readonly joined?: number;
      readonly error?: string;
    })
  | GoMemberEvent
  | (Base & { readonly event: 'suspect'; readonly member: string })
  | (Base & { readonly event: 'message'; readonly payload: Uint8Array })
  | (Base & { readonly event: 'remote-state'; readonly state: Uint8Array; readonly join: boolean })
  | (Base & { readonly event: 'members'; readonly members: readonly GoMember[] })
  | (Base & { readonly event: 'ack'; readonly command: string })
  | (Base & { readonly event: 'left' })
  | (Base & { readonly event: 'error'; readonly error: string; readonly command?: string });

const STATES: readonly string[] = ['alive', 'suspect', 'dead', 'left', 'unknown'];
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

type Fields = Record<string, unknown>;

/** A check failed: the message says which field. */
class Bad extends Error {}

function str(o: Fields, key: string): string {
  const v = o[key];
  if (typeof v !== 'string') throw new Bad(`${key} is not a string`);
  return v;
}

function bytes(o: Fields, key: string): Uint8Array {
  const v = str(o, key);
  if (v.length % 4 !== 0 || !BASE64.test(v)) throw new Bad(`${key} is not base64`);
  return new Uint8Array(Buffer.from(v, 'base64'));
}

function uint(o: Fields, key: string): number {
  const v = o[key];
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
    throw new Bad(`${key} is not a natural number`);
  return v;
}

function optional<T>(o: Fields, key: string, read: (o: Fields, key: string) => T): { [k: string]: T } {
  return o[key] === undefined ? {} : { [key]: read(o, key) };
}

function member(o: Fields, nameKey: 'name' | 'member'): GoMember {
  const state = str(o, 'state');
  if (!STATES.includes(state)) throw new Bad(`state ${JSON.stringify(state)} is not a memberlist state`);
  return {
    name: str(o, nameKey),
    addr: str(o, 'addr'),
    meta: bytes(o, 'meta'),
    state: state as GoMemberState,
    ...optional(o, 'incarnation', uint),
  };
}

function event(o: Fields, base: Base): GoEvent {
  const kind = str(o, 'event');
  switch (kind) {
    case 'ready':
      return {
        ...base,
        event: kind,
        addr: str(o, 'addr'),
        ...optional(o, 'joined', uint),
        ...optional(o, 'error', str),
      };
    case 'join':
    case 'leave':
    case 'update': {
      const { name, ...rest } = member(o, 'member');
      return { ...base, event: kind, member: name, ...rest };
    }
    case 'suspect':
      return { ...base, event: kind, member: str(o, 'member') };
    case 'message':
      return { ...base, event: kind, payload: bytes(o, 'payload') };
    case 'remote-state':
      if (typeof o.join !== 'boolean') throw new Bad('join is not a boolean');
      return { ...base, event: kind, state: bytes(o, 'state'), join: o.join };
    case 'members': {
      // Go encodes an empty slice that was never appended to as null.
      const list = o.members ?? [];
      if (!Array.isArray(list)) throw new Bad('members is not an array');
      return { ...base, event: kind, members: list.map((m) => member(asObject(m), 'name')) };
    }
    case 'ack':
      return { ...base, event: kind, command: str(o, 'command') };
    case 'left':
      return { ...base, event: kind };
    case 'error':
      return { ...base, event: kind, error: str(o, 'error'), ...optional(o, 'command', str) };
    default:
      throw new Bad(`event ${JSON.stringify(kind)} is unknown`);
  }
}

function asObject(v: unknown): Fields {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Bad('not a JSON object');
  return v as Fields;
}

/** The event `text` is, or why it is not one, for an agent named `node`. */
export function parseGoLine(text: string, node: string): GoEvent | string {
  try {
    const o = asObject(JSON.parse(text));
    const t = uint(o, 't');
    if (o.node !== node) return `node is ${JSON.stringify(o.node)}, not ${JSON.stringify(node)}`;
    return event(o, { t, node });
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
