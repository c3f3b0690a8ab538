/**
 * memberlist's messages (docs/memberlist-wire.md, "Codec"): a type byte, then the struct as a MessagePack
 * map keyed by Go field name in sorted order, `omitempty` fields left out when empty, and fdkit's mark
 * `Fdkit` on pings when set. A user message is the type byte and the payload as it is.
 *
 * Decoding checks every field's type and range and answers a {@link Rejection} for anything else; it
 * skips unknown keys and takes absent ones as Go's zero values, as go-msgpack does, and refuses bytes
 * after the map (memberlist never writes any).
 */
import { type Rejection, reject } from '../drop-reason.js';
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
import { MpReader, MpWriter } from './msgpack.js';
import {
  type MlAck,
  type MlAlive,
  type MlDead,
  type MlErr,
  type MlIndirectPing,
  type MlNack,
  type MlPacketMessage,
  type MlPing,
  type MlSuspect,
  MlType,
} from './types.js';

/** A message that is a type byte and one MessagePack map: every packet message but `user`, and `err`. */
export type MlMapMessage = Exclude<MlPacketMessage, { type: 'user' }> | MlErr;

/** A decoded message, or why it was dropped. */
export type MlMessageResult = { readonly ok: true; readonly message: MlPacketMessage | MlErr } | Rejection;

// --- writing --------------------------------------------------------------------------------------------

/** Writes `m`'s map (without the type byte) as go-msgpack writes the Go struct. */
export function writeMlBody(w: MpWriter, m: MlMapMessage): void {
  switch (m.type) {
    case 'ping': {
      const source = sourceFields(m);
      w.map(2 + source + (m.fdkit === undefined ? 0 : 1));
      if (m.fdkit !== undefined) w.key(K.Fdkit).uint(checkedUint(m.fdkit, U32, 'ping.fdkit'));
      w.key(K.Node).str(checkedName(m.node, true, 'ping.node'));
      w.key(K.SeqNo).uint(checkedUint(m.seqNo, U32, 'ping.seqNo'));
      writeSource(w, m);
      return;
    }
    case 'indirect-ping': {
      const source = sourceFields(m);
      w.map(5 + source + (m.fdkit === undefined ? 0 : 1));
      if (m.fdkit !== undefined) w.key(K.Fdkit).uint(checkedUint(m.fdkit, U32, 'indirect-ping.fdkit'));
      w.key(K.Nack).bool(m.nack);
      w.key(K.Node).str(checkedName(m.node, true, 'indirect-ping.node'));
      w.key(K.Port).uint(checkedUint(m.port, U16, 'indirect-ping.port'));
      w.key(K.SeqNo).uint(checkedUint(m.seqNo, U32, 'indirect-ping.seqNo'));
      writeSource(w, m);
      w.key(K.Target).bytes(checkedIp(m.target, false, 'indirect-ping.target'));
      return;
    }
    case 'ack':
      w.map(2).key(K.Payload).bytes(m.payload);
      w.key(K.SeqNo).uint(checkedUint(m.seqNo, U32, 'ack.seqNo'));
      return;
    case 'nack':
      w.map(1)
        .key(K.SeqNo)
        .uint(checkedUint(m.seqNo, U32, 'nack.seqNo'));
      return;
    case 'err':
      w.map(1).key(K.Error).str(m.error);
      return;
    case 'suspect':
    case 'dead':
      w.map(3)
        .key(K.From)
        .str(checkedName(m.from, true, `${m.type}.from`));
      w.key(K.Incarnation).uint(checkedUint(m.incarnation, U32, `${m.type}.incarnation`));
      w.key(K.Node).str(checkedName(m.node, false, `${m.type}.node`));
      return;
    case 'alive':
      w.map(6)
        .key(K.Addr)
        .bytes(checkedIp(m.addr, false, 'alive.addr'));
      w.key(K.Incarnation).uint(checkedUint(m.incarnation, U32, 'alive.incarnation'));
      w.key(K.Meta).bytes(checkedBytes(m.meta, ML_META_BYTES_MAX, 'alive.meta'));
      w.key(K.Node).str(checkedName(m.node, false, 'alive.node'));
      w.key(K.Port).uint(checkedUint(m.port, U16, 'alive.port'));
      w.key(K.Vsn).bytes(checkedBytes(m.vsn, ML_VSN_BYTES_MAX, 'alive.vsn'));
      return;
  }
}

type Sourced = MlPing | MlIndirectPing;

// The omitempty source fields present: go-msgpack leaves out an empty slice, a zero port, an empty name.
function sourceFields(m: Sourced): number {
  return (
    (m.sourceAddr !== undefined && m.sourceAddr.length > 0 ? 1 : 0) +
    (m.sourceNode !== undefined && m.sourceNode !== '' ? 1 : 0) +
    (m.sourcePort !== undefined && m.sourcePort !== 0 ? 1 : 0)
  );
}

function writeSource(w: MpWriter, m: Sourced): void {
  if (m.sourceAddr !== undefined && m.sourceAddr.length > 0) {
    w.key(K.SourceAddr).bytes(checkedIp(m.sourceAddr, true, `${m.type}.sourceAddr`));
  }
  if (m.sourceNode !== undefined && m.sourceNode !== '') {
    w.key(K.SourceNode).str(checkedName(m.sourceNode, true, `${m.type}.sourceNode`));
  }
  if (m.sourcePort !== undefined && m.sourcePort !== 0) {
    w.key(K.SourcePort).uint(checkedUint(m.sourcePort, U16, `${m.type}.sourcePort`));
  }
}

const TYPE_BYTE: Record<(MlPacketMessage | MlErr)['type'], number> = {
  ping: MlType.ping,
  'indirect-ping': MlType.indirectPing,
  ack: MlType.ack,
  nack: MlType.nack,
  suspect: MlType.suspect,
  alive: MlType.alive,
  dead: MlType.dead,
  user: MlType.user,
  err: MlType.err,
};

/** Writes `m` whole: its type byte, then its map (or a user message's payload). Throws on a field out of range. */
export function writeMlMessage(w: MpWriter, m: MlPacketMessage | MlErr): void {
  w.u8(TYPE_BYTE[m.type]);
  if (m.type === 'user') w.raw(m.payload);
  else writeMlBody(w, m);
}

/** `m` encoded as memberlist sends it alone in a packet (before compression, CRC and encryption). */
export function encodeMlMessage(m: MlPacketMessage | MlErr): Uint8Array {
  const w = new MpWriter(m.type === 'user' ? 1 + m.payload.length : 64);
  writeMlMessage(w, m);
  return w.finish();
}

// --- reading --------------------------------------------------------------------------------------------

const PING_KEYS = [K.SeqNo, K.Node, K.SourceAddr, K.SourcePort, K.SourceNode, K.Fdkit];
const INDIRECT_KEYS = [
  K.SeqNo,
  K.Target,
  K.Port,
  K.Node,
  K.Nack,
  K.SourceAddr,
  K.SourcePort,
  K.SourceNode,
  K.Fdkit,
];
const ACK_KEYS = [K.SeqNo, K.Payload];
const NACK_KEYS = [K.SeqNo];
const ERR_KEYS = [K.Error];
const STATEMENT_KEYS = [K.Incarnation, K.Node, K.From];
const ALIVE_KEYS = [K.Incarnation, K.Node, K.Addr, K.Port, K.Meta, K.Vsn];

const EMPTY: Uint8Array = new Uint8Array(0);

function readPing(r: MpReader): MlPing {
  let seqNo = 0;
  let node = '';
  let sourceAddr = EMPTY;
  let sourcePort = 0;
  let sourceNode = '';
  let fdkit = -1;
  for (let n = r.readMapLength('ping'); n > 0 && r.ok; n--) {
    switch (nextKey(r, PING_KEYS, 'ping')) {
      case 0:
        seqNo = r.readUint(U32, 'ping.SeqNo');
        break;
      case 1:
        node = readName(r, true, 'ping.Node');
        break;
      case 2:
        sourceAddr = readIp(r, true, 'ping.SourceAddr');
        break;
      case 3:
        sourcePort = r.readUint(U16, 'ping.SourcePort');
        break;
      case 4:
        sourceNode = readName(r, true, 'ping.SourceNode');
        break;
      case 5:
        fdkit = r.readUint(U32, 'ping.Fdkit');
        break;
    }
  }
  return withSource({ type: 'ping', seqNo, node }, sourceAddr, sourcePort, sourceNode, fdkit);
}

function readIndirectPing(r: MpReader): MlIndirectPing {
  let seqNo = 0;
  let target = EMPTY;
  let port = 0;
  let node = '';
  let nack = 0;
  let sourceAddr = EMPTY;
  let sourcePort = 0;
  let sourceNode = '';
  let fdkit = -1;
  for (let n = r.readMapLength('indirect-ping'); n > 0 && r.ok; n--) {
    switch (nextKey(r, INDIRECT_KEYS, 'indirect-ping')) {
      case 0:
        seqNo = r.readUint(U32, 'indirect-ping.SeqNo');
        break;
      case 1:
        target = readIp(r, false, 'indirect-ping.Target');
        break;
      case 2:
        port = r.readUint(U16, 'indirect-ping.Port');
        break;
      case 3:
        node = readName(r, true, 'indirect-ping.Node');
        break;
      case 4:
        nack = r.readBool('indirect-ping.Nack');
        break;
      case 5:
        sourceAddr = readIp(r, true, 'indirect-ping.SourceAddr');
        break;
      case 6:
        sourcePort = r.readUint(U16, 'indirect-ping.SourcePort');
        break;
      case 7:
        sourceNode = readName(r, true, 'indirect-ping.SourceNode');
        break;
      case 8:
        fdkit = r.readUint(U32, 'indirect-ping.Fdkit');
        break;
    }
  }
  if (r.ok && target.length === 0) r.fail('invalid-field', 'indirect-ping.Target: missing');
  const base = { type: 'indirect-ping', seqNo, target, port, node, nack: nack === 1 } as const;
  return withSource(base, sourceAddr, sourcePort, sourceNode, fdkit);
}

function withSource<T extends Sourced>(
  base: T,
  sourceAddr: Uint8Array,
  sourcePort: number,
  sourceNode: string,
  fdkit: number,
): T {
  if (sourceAddr.length === 0 && sourcePort === 0 && sourceNode === '' && fdkit < 0) return base;
  const m: { -readonly [K in keyof Sourced]?: Sourced[K] } = base;
  if (sourceAddr.length > 0) m.sourceAddr = sourceAddr;
  if (sourcePort !== 0) m.sourcePort = sourcePort;
  if (sourceNode !== '') m.sourceNode = sourceNode;
  if (fdkit >= 0) m.fdkit = fdkit;
  return base;
}

function readAck(r: MpReader): MlAck {
  let seqNo = 0;
  let payload = EMPTY;
  for (let n = r.readMapLength('ack'); n > 0 && r.ok; n--) {
    const key = nextKey(r, ACK_KEYS, 'ack');
    if (key === 0) seqNo = r.readUint(U32, 'ack.SeqNo');
    else if (key === 1) payload = r.readBytes(U32, 'ack.Payload');
  }
  return { type: 'ack', seqNo, payload };
}

function readNack(r: MpReader): MlNack {
  let seqNo = 0;
  for (let n = r.readMapLength('nack'); n > 0 && r.ok; n--) {
    if (nextKey(r, NACK_KEYS, 'nack') === 0) seqNo = r.readUint(U32, 'nack.SeqNo');
  }
  return { type: 'nack', seqNo };
}

function readErr(r: MpReader): MlErr {
  let error = '';
  for (let n = r.readMapLength('err'); n > 0 && r.ok; n--) {
    if (nextKey(r, ERR_KEYS, 'err') === 0) error = r.readString(U32, 'err.Error');
  }
  return { type: 'err', error };
}

function readStatement<T extends 'suspect' | 'dead'>(r: MpReader, type: T): MlSuspect | MlDead {
  let incarnation = 0;
  let node = '';
  let from = '';
  for (let n = r.readMapLength(type); n > 0 && r.ok; n--) {
    switch (nextKey(r, STATEMENT_KEYS, type)) {
      case 0:
        incarnation = r.readUint(U32, `${type}.Incarnation`);
        break;
      case 1:
        node = readName(r, true, `${type}.Node`);
        break;
      case 2:
        from = readName(r, true, `${type}.From`);
        break;
    }
  }
  if (r.ok && node === '') r.fail('invalid-field', `${type}.Node: empty`);
  return { type, incarnation, node, from };
}

function readAlive(r: MpReader): MlAlive {
  let incarnation = 0;
  let node = '';
  let addr = EMPTY;
  let port = 0;
  let meta = EMPTY;
  let vsn = EMPTY;
  for (let n = r.readMapLength('alive'); n > 0 && r.ok; n--) {
    switch (nextKey(r, ALIVE_KEYS, 'alive')) {
      case 0:
        incarnation = r.readUint(U32, 'alive.Incarnation');
        break;
      case 1:
        node = readName(r, true, 'alive.Node');
        break;
      case 2:
        addr = readIp(r, false, 'alive.Addr');
        break;
      case 3:
        port = r.readUint(U16, 'alive.Port');
        break;
      case 4:
        meta = r.readBytes(ML_META_BYTES_MAX, 'alive.Meta');
        break;
      case 5:
        vsn = r.readBytes(ML_VSN_BYTES_MAX, 'alive.Vsn');
        break;
    }
  }
  if (r.ok && node === '') r.fail('invalid-field', 'alive.Node: empty');
  if (r.ok && addr.length === 0) r.fail('invalid-field', 'alive.Addr: missing');
  return { type: 'alive', incarnation, node, addr, port, meta, vsn };
}

/**
 * Reads the map of a message of type byte `type` from `r` (a stream reads its ping, ack and err so);
 * undefined for a type that has no map. Check `r.ok` after.
 */
export function readMlBody(r: MpReader, type: number): MlMapMessage | undefined {
  switch (type) {
    case MlType.ping:
      return readPing(r);
    case MlType.indirectPing:
      return readIndirectPing(r);
    case MlType.ack:
      return readAck(r);
    case MlType.nack:
      return readNack(r);
    case MlType.suspect:
      return readStatement(r, 'suspect');
    case MlType.alive:
      return readAlive(r);
    case MlType.dead:
      return readStatement(r, 'dead');
    case MlType.err:
      return readErr(r);
    default:
      return undefined;
  }
}

/**
 * The message in `bytes[start, end)`: a type byte and its map, or a user message. Never throws.
 * `unknown-type` for a type byte that is not a message (compound, compress and the other wrappers are
 * the packet decoder's).
 */
export function decodeMlMessage(bytes: Uint8Array, start = 0, end = bytes.length): MlMessageResult {
  if (end <= start) return reject('malformed', 'empty message');
  const type = bytes[start]!;
  if (type === MlType.user) {
    return { ok: true, message: { type: 'user', payload: bytes.slice(start + 1, end) } };
  }
  const r = new MpReader(bytes, start + 1, end);
  const message = readMlBody(r, type);
  if (message === undefined) return reject('unknown-type', `message type ${type}`);
  if (!r.ok) return reject(r.reason, r.detail);
  if (r.pos !== end) return reject('malformed', `${end - r.pos} bytes after the ${message.type} message`);
  return { ok: true, message };
}
