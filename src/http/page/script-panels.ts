/**
 * The status page script's panels around the table: the counts by state, this member's health, the
 * leader hint, the connection, who suspects whom, and the timeline of transitions.
 */
export const SCRIPT_PANELS = `
const SUSPICIONS_MAX = 20;

function renderSummary() {
  const counts = { alive: 0, suspect: 0, dead: 0, left: 0 };
  for (const member of model.members.values()) counts[member.state] = (counts[member.state] || 0) + 1;
  byId('count-total').textContent = String(model.members.size);
  for (const state of STATES) byId('count-' + state).textContent = String(counts[state]);
  const filter = byId('state-filter').value;
  for (const chip of document.querySelectorAll('.chip')) {
    chip.setAttribute('aria-pressed', chip.dataset.filter === filter ? 'true' : 'false');
  }
  const shown = byId('shown');
  shown.dataset.count = String(table.list.length);
  shown.textContent = 'showing ' + table.list.length + ' of ' + model.members.size;
}

function renderSelf(now) {
  const self = model.self;
  if (self !== null) {
    byId('title-self').textContent = self.name + ' · ' + self.address;
    byId('self-name').textContent = self.name;
    byId('self-address').textContent = self.address;
    byId('self-incarnation').textContent = String(self.incarnation);
    byId('self-health').textContent = self.localHealth === 0
      ? '0 (healthy)'
      : self.localHealth + ' (degraded: probing more slowly)';
    byId('self-joined').textContent = self.joined ? 'yes' : 'no';
    byId('self-pending').textContent = String(self.pendingBroadcasts);
  }
  byId('self-updated').textContent = model.lastPoll === null ? '…' : ago(model.lastPoll, now);
  const health = byId('health-status');
  const status = model.health === null ? 'unknown' : model.health.status;
  health.dataset.state = status;
  health.textContent = 'health: ' + status;
  const leader = model.leader;
  byId('leader').textContent = leader === undefined
    ? '…'
    : leader === null
      ? 'no hint configured'
      : leader.leader === null
        ? 'none: the split-brain resolver downed this side'
        : leader.leader + (leader.isLeader ? ' (this member)' : '') + ' · epoch ' + leader.epoch;
}

function renderConnection() {
  let state = 'live';
  let text = 'live';
  if (connection.error === 'unauthorized') {
    state = 'unauthorized';
    text = 'unauthorized: open the page as /?token=…';
  } else if (connection.pollOk === false && connection.stream !== 'open') {
    state = 'disconnected';
    text = 'disconnected, retrying';
  } else if (connection.stream === 'connecting') {
    state = 'connecting';
    text = 'connecting…';
  } else if (connection.stream !== 'open') {
    state = 'reconnecting';
    text = 'stream lost, reconnecting…';
  } else if (connection.pollOk === false) {
    state = 'reconnecting';
    text = 'polling failed: ' + connection.error;
  }
  const badge = byId('conn');
  badge.dataset.state = state;
  badge.textContent = text;
}

function renderSuspicions() {
  const accused = [];
  for (const member of model.members.values()) {
    if (member.state === 'suspect' || (member.state === 'dead' && member.accuser)) accused.push(member);
  }
  accused.sort(function (a, b) { return a.state === b.state ? byName(a, b) : a.state === 'suspect' ? -1 : 1; });
  const items = accused.slice(0, SUSPICIONS_MAX).map(function (member) {
    const li = el('li');
    li.dataset.member = member.name;
    const verb = member.state === 'suspect' ? ' suspects ' : ' declared dead ';
    const n = member.confirmations;
    const extra = n > 0 ? ' (+' + n + (n === 1 ? ' confirmation)' : ' confirmations)') : '';
    li.append(el('span', 'dot s-' + member.state), el('b', null, member.accuser || 'someone'), verb,
      el('b', null, member.name), extra);
    return li;
  });
  if (accused.length > SUSPICIONS_MAX) items.push(el('li', 'muted', 'and ' + (accused.length - SUSPICIONS_MAX) + ' more'));
  if (items.length === 0) items.push(el('li', 'muted', 'Nobody is suspected.'));
  byId('suspicions').replaceChildren(...items);
}

function timelineEntry(event) {
  const li = el('li');
  const stamp = el('time', null, timeOfDay(event.t));
  stamp.dateTime = new Date(event.t).toISOString();
  if (event.kind === 'leader') {
    li.dataset.kind = 'leader';
    li.append(stamp, 'leader ', el('span', 'who', event.leader),
      ' (was ' + (event.previous || 'none') + ', epoch ' + event.epoch + ') · ' + event.cause);
    return li;
  }
  li.dataset.kind = 'member';
  li.dataset.member = event.member;
  li.dataset.type = event.type;
  const by = event.accuser ? ' · by ' + event.accuser + (event.confirmations > 0 ? ' +' + event.confirmations : '') : '';
  li.append(stamp, el('span', 'dot s-' + event.type), el('span', 'who', event.member),
    ' ' + event.previous + ' \\u2192 ' + event.type + ' · ' + event.cause + by + ' · inc ' + event.incarnation);
  return li;
}

function renderTimeline() {
  const list = byId('timeline');
  for (const event of model.fresh) list.prepend(timelineEntry(event));
  model.fresh = [];
  while (list.childElementCount > TIMELINE_MAX) list.lastElementChild.remove();
}
`;
