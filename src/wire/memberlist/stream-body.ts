/**
 * The bodies of memberlist's stream messages, after the envelope (`sendLocalState`, `sendUserMsg`,
 * `readRemoteState`, `readUserMsg` in net.go): a push-pull is type 6, the header map {Join, Nodes,
 * UserStateLen} (and fdkit's `Fdkit`), `Nodes` node-state maps, then `UserStateLen` raw bytes; a user
 * message is type 8, the map {UserMsgLen}, then the bytes; ping (0), ack (2) and err (13) are as in a
 * datagram.
 *
 * Parsing is resumable: on bytes that end early it says how many it needs at least, and a push-pull keeps
 * the node states read so far, so that a large state arriving in many chunks is read once, not once per
 * chunk.
 */
import { type Rejection, reject } from '../drop-reason.js';
import { MEMBERS_PER_PUSH_PULL_MAX } from '../limits.js';
import {
  checkedBytes,
  checkedIp,
  checkedName,
  checkedUint,
  K,
  ML_META_BYTES_MAX,
  ML_VSN_BYTES_MAX,
  nextKey,
  readIp,
  readName,
  U16,
  U32,
} from './fields.js';
import { readMlBody, writeMlBody } from './messages.js';
import { MpReader, type MpWriter } from './msgpack.js';
import { type MlNodeState, type MlStreamMessage, MlType } from './types.js';

/** Writes `m` (type byte and body) as memberlist writes it on a stream, before compression and encryption. */
export function writeMlStreamBody(w: MpWriter, m: MlStreamMessage): void {
  switch (m.type) {
    case 'push-pull':
      w.u8(MlType.pushPull).map(3 + (m.fdkit === undefined ? 0 : 1) + (m.fdkitFrom === undefined ? 0 : 1));
      // Keys in go-msgpack's order (sorted by name): Fdkit, FdkitFrom, Join, Nodes, UserStateLen.
      if (m.fdkit !== undefined) w.key(K.Fdkit).uint(checkedUint(m.fdkit, U32, 'push-pull.fdkit'));
      if (m.fdkitFrom !== undefined)
        w.key(K.FdkitFrom).str(checkedName(m.fdkitFrom, false, 'push-pull.fdkitFrom'));
      w.key(K.Join)
        .bool(m.join)
        .key(K.Nodes)
        .uint(m.nodes.length)
        .key(K.UserStateLen)
        .uint(m.userState.length);
      for (const n of m.nodes) writeNodeState(w, n);
      w.raw(m.userState);
      return;
    case 'user':
      w.u8(MlType.user).map(1).key(K.UserMsgLen).uint(m.payload.length).raw(m.payload);
      return;
    case 'ping':
      w.u8(MlType.ping);
      writeMlBody(w, m);
      return;
    case 'ack':
      w.u8(MlType.ack);
      writeMlBody(w, m);
      return;
    case 'err':
      w.u8(MlType.err);
      writeMlBody(w, m);
      return;
  }
}

function writeNodeState(w: MpWriter, n: MlNodeState): void {
  w.map(7)
    .key(K.Addr)
    .bytes(checkedIp(n.addr, false, 'node.addr'));
  w.key(K.Incarnation).uint(checkedUint(n.incarnation, U32, 'node.incarnation'));
  w.key(K.Meta).bytes(checkedBytes(n.meta, ML_META_BYTES_MAX, 'node.meta'));
  w.key(K.Name).str(checkedName(n.name, false, 'node.name'));
  w.key(K.Port).uint(checkedUint(n.port, U16, 'node.port'));
  w.key(K.State).uint(checkedUint(n.state, 3, 'node.state'));
  w.key(K.Vsn).bytes(checkedBytes(n.vsn, ML_VSN_BYTES_MAX, 'node.vsn'));
}

const NODE_KEYS = [K.Name, K.Addr, K.Port, K.Meta, K.Incarnation, K.State, K.Vsn];
const PUSH_PULL_KEYS = [K.Nodes, K.UserStateLen, K.Join, K.Fdkit, K.FdkitFrom];
const USER_KEYS = [K.UserMsgLen];
const EMPTY: Uint8Array = new Uint8Array(0);

function readNodeState(r: MpReader, what: string): MlNodeState {
  let name = '';
  let addr = EMPTY;
  let port = 0;
  let meta = EMPTY;
  let incarnation = 0;
  let state = 0;
  let vsn = EMPTY;
  for (let n = r.readMapLength(what); n > 0 && r.ok; n--) {
    switch (nextKey(r, NODE_KEYS, what)) {
      case 0:
        name = readName(r, false, `${what}.Name`);
        break;
      case 1:
        addr = readIp(r, false, `${what}.Addr`);
        break;
      case 2:
        port = r.readUint(U16, `${what}.Port`);
        break;
      case 3:
        meta = r.readBytes(ML_META_BYTES_MAX, `${what}.Meta`);
        break;
      case 4:
        incarnation = r.readUint(U32, `${what}.Incarnation`);
        break;
      case 5:
        state = r.readUint(3, `${what}.State`);
        break;
      case 6:
        vsn = r.readBytes(ML_VSN_BYTES_MAX, `${what}.Vsn`);
        break;
    }
  }
  if (r.ok && name === '') r.fail('invalid-field', `${what}.Name: missing`);
  if (r.ok && addr.length === 0) r.fail('invalid-field', `${what}.Addr: missing`);
  return { name, addr, port, meta, incarnation, state, vsn };
}

/** A body parsed whole: the message and the offset just after it. */
export interface MlBodyDone {
  readonly ok: true;
  readonly message: MlStreamMessage;
  readonly end: number;
}

/** More bytes needed: at least `needed` bytes from the start of the body. */
export interface MlBodyMore {
  readonly ok: true;
  readonly needed: number;
}

/** Progress through a push-pull, kept between attempts on a growing buffer. */
export class MlBodyParser {
  private nodes: MlNodeState[] = [];
  private header:
    | { join: boolean; count: number; userStateLen: number; fdkit: number; from?: string }
    | undefined;
  private resumeAt = 0;

  /**
   * Parses the body in `bytes` (its type byte first, at offset 0). `complete`: no more bytes will come,
   * so running out is `malformed`. `bytesMax` bounds the user state or payload length announced.
   */
  parse(bytes: Uint8Array, complete: boolean, bytesMax: number): MlBodyDone | MlBodyMore | Rejection {
    if (bytes.length === 0)
      return complete ? reject('malformed', 'empty stream message') : { ok: true, needed: 1 };
    const type = bytes[0]!;
    const r = new MpReader(bytes, this.resumeAt === 0 ? 1 : this.resumeAt);
    let message: MlStreamMessage | undefined;
    if (type === MlType.pushPull) message = this.pushPull(r, bytesMax);
    else if (type === MlType.user) message = user(r, bytesMax);
    else if (type === MlType.ping || type === MlType.ack || type === MlType.err) {
      message = readMlBody(r, type) as MlStreamMessage;
    } else return reject('unknown-type', `stream message type ${type}`);
    if (!r.ok) {
      if (r.truncated && !complete) return { ok: true, needed: r.needed };
      return reject(r.reason, r.detail);
    }
    return { ok: true, message: message!, end: r.pos };
  }

  private pushPull(r: MpReader, bytesMax: number): MlStreamMessage | undefined {
    if (this.header === undefined) {
      const h: { join: boolean; count: number; userStateLen: number; fdkit: number; from?: string } = {
        join: false,
        count: 0,
        userStateLen: 0,
        fdkit: -1,
      };
      for (let n = r.readMapLength('push-pull'); n > 0 && r.ok; n--) {
        switch (nextKey(r, PUSH_PULL_KEYS, 'push-pull')) {
          case 0:
            h.count = r.readUint(MEMBERS_PER_PUSH_PULL_MAX, 'push-pull.Nodes');
            break;
          case 1:
            h.userStateLen = r.readUint(bytesMax, 'push-pull.UserStateLen');
            break;
          case 2:
            h.join = r.readBool('push-pull.Join') === 1;
            break;
          case 3:
            h.fdkit = r.readUint(U32, 'push-pull.Fdkit');
            break;
          case 4:
            h.from = readName(r, false, 'push-pull.FdkitFrom');
            break;
        }
      }
      if (!r.ok) return undefined;
      this.header = h;
      this.resumeAt = r.pos;
    }
    const h = this.header;
    while (this.nodes.length < h.count) {
      const node = readNodeState(r, `push-pull.nodes[${this.nodes.length}]`);
      if (!r.ok) return undefined;
      this.nodes.push(node);
      this.resumeAt = r.pos;
    }
    const userState = r.readFixed(h.userStateLen, 'push-pull user state');
    if (!r.ok) return undefined;
    const base = { type: 'push-pull', join: h.join, nodes: this.nodes, userState } as const;
    const marked = h.fdkit < 0 ? base : { ...base, fdkit: h.fdkit };
    return h.from === undefined ? marked : { ...marked, fdkitFrom: h.from };
  }
}

function user(r: MpReader, bytesMax: number): MlStreamMessage | undefined {
  let length = 0;
  for (let n = r.readMapLength('user'); n > 0 && r.ok; n--) {
    if (nextKey(r, USER_KEYS, 'user') === 0) length = r.readUint(bytesMax, 'user.UserMsgLen');
  }
  const payload = r.readFixed(length, 'user payload');
  return r.ok ? { type: 'user', payload } : undefined;
}
