/**
 * The status page script's model of the cluster and how it stays current. Events of `/v1/events` are
 * applied at once; `/v1/members` is fetched again every second and on every reconnection, because an
 * event lost while the stream was down would otherwise leave the view wrong until the member's next
 * transition. A snapshot fetched while an event arrived must not undo that event, so each event is
 * stamped with a sequence number and a snapshot keeps the fields of the members that changed after it
 * was requested.
 */
export const SCRIPT_MODEL = `
const TIMELINE_MAX = 500;
// Fields an event of /v1/events carries; the snapshot gives the others (phi, rttMs, meta, local).
const EVENT_FIELDS = ['state', 'incarnation', 'address', 'accuser', 'confirmations', 'since'];

const model = {
  members: new Map(),
  touched: new Map(),
  seq: 0,
  self: null,
  health: null,
  // undefined until asked, null when the server has no leader hint (404).
  leader: undefined,
  timeline: [],
  fresh: [],
  lastPoll: null,
};

function applySnapshot(list, seqAtRequest) {
  const next = new Map();
  for (const member of list) {
    const held = model.members.get(member.name);
    const touched = model.touched.get(member.name);
    if (held && touched !== undefined && touched > seqAtRequest) {
      const merged = Object.assign({}, member);
      for (const field of EVENT_FIELDS) merged[field] = held[field];
      next.set(member.name, merged);
    } else {
      next.set(member.name, member);
    }
  }
  for (const [name, held] of model.members) {
    if (!next.has(name) && (model.touched.get(name) || 0) > seqAtRequest) next.set(name, held);
  }
  for (const [name, touched] of model.touched) if (touched <= seqAtRequest) model.touched.delete(name);
  model.members = next;
}

function blankMember(event) {
  return {
    name: event.member, address: event.address, state: 'alive', incarnation: 0, meta: '',
    metaEncoding: 'utf8', since: null, accuser: null, confirmations: 0, phi: 0, rttMs: null, local: false,
  };
}

function applyMemberEvent(event) {
  model.seq += 1;
  const held = model.members.get(event.member);
  const member = Object.assign({}, held || blankMember(event));
  member.address = event.address;
  member.incarnation = event.incarnation;
  if (event.type !== 'update') {
    member.state = event.type;
    member.since = event.t;
    member.accuser = event.accuser;
    member.confirmations = event.confirmations;
  }
  model.members.set(event.member, member);
  model.touched.set(event.member, model.seq);
  remember(event);
}

function applyLeaderEvent(event) {
  const selfName = model.self ? model.self.name : null;
  model.leader = { leader: event.leader, epoch: event.epoch, isLeader: event.leader === selfName };
  remember(event);
}

function remember(event) {
  model.timeline.unshift(event);
  model.fresh.push(event);
  if (model.timeline.length > TIMELINE_MAX) model.timeline.length = TIMELINE_MAX;
}
`;
