/**
 * The status page script's member table, virtualized: it holds only the rows in view (and a margin),
 * between two spacer rows that give the scroll bar the height of the whole list, so that a thousand
 * members cost a few dozen rows of DOM. Rows are rebuilt on each render rather than patched: a render
 * touches at most a screenful, and a rebuild cannot leave a stale cell behind.
 */
export const SCRIPT_TABLE = `
const OVERSCAN = 8;
const COLUMNS = 10;

const table = { key: 'name', dir: 1, list: [], rowHeight: 27, measured: false };

const SORT_VALUES = {
  name: function (m) { return m.name; },
  address: function (m) { return m.address; },
  state: function (m) { return STATES.indexOf(m.state); },
  incarnation: function (m) { return m.incarnation; },
  since: function (m) { return m.since === null ? -Infinity : m.since; },
  rtt: function (m) { return m.rttMs === null ? Infinity : m.rttMs; },
  phi: function (m) { return m.phi; },
  accuser: function (m) { return m.accuser || ''; },
};

function byName(a, b) { return a.name < b.name ? -1 : a.name > b.name ? 1 : 0; }

function compareBy(key, dir) {
  const value = SORT_VALUES[key];
  return function (a, b) {
    const x = value(a);
    const y = value(b);
    if (x < y) return -dir;
    if (x > y) return dir;
    return byName(a, b);
  };
}

function filterMembers() {
  const query = byId('search').value.trim().toLowerCase();
  const state = byId('state-filter').value;
  const list = [];
  for (const member of model.members.values()) {
    if (state !== 'all' && member.state !== state) continue;
    if (query !== '' && member.name.toLowerCase().indexOf(query) < 0) continue;
    list.push(member);
  }
  list.sort(compareBy(table.key, table.dir));
  table.list = list;
}

function textCell(text, className) {
  const td = el('td', className, text);
  if (text) td.title = text;
  return td;
}

function memberRow(member, now) {
  const tr = el('tr', member.local ? 'm local' : 'm');
  tr.dataset.name = member.name;
  tr.dataset.state = member.state;
  const state = el('td');
  state.append(stateBadge(member.state));
  tr.append(
    el('td', null, member.local ? '\\u2605' : ''),
    textCell(member.name, 'mono'),
    textCell(member.address, 'mono'),
    state,
    el('td', null, member.incarnation),
    el('td', null, ago(member.since, now)),
    el('td', null, formatRtt(member)),
    el('td', null, formatPhi(member)),
    textCell(formatAccusation(member), 'mono'),
    textCell(formatMeta(member), 'muted'),
  );
  return tr;
}

function spacerRow(height) {
  const tr = el('tr', 'pad');
  const td = el('td');
  td.colSpan = COLUMNS;
  td.style.height = height + 'px';
  tr.append(td);
  return tr;
}

function renderRows(now) {
  const scroll = byId('table-scroll');
  const list = table.list;
  const height = table.rowHeight;
  const head = byId('members').tHead.offsetHeight;
  const first = Math.max(0, Math.floor((scroll.scrollTop - head) / height) - OVERSCAN);
  const last = Math.min(list.length, first + Math.ceil(scroll.clientHeight / height) + 2 * OVERSCAN);
  const rows = [spacerRow(first * height)];
  for (let i = first; i < last; i++) rows.push(memberRow(list[i], now));
  rows.push(spacerRow((list.length - last) * height));
  byId('rows').replaceChildren(...rows);
  byId('empty').hidden = list.length > 0;
  // The spacers assume every row has the height of the first one drawn: measure it once.
  if (last > first && !table.measured) {
    table.measured = true;
    const drawn = rows[1].getBoundingClientRect().height;
    if (drawn > 0 && Math.abs(drawn - height) > 0.5) {
      table.rowHeight = drawn;
      renderRows(now);
    }
  }
}

function sortBy(key) {
  table.dir = table.key === key ? -table.dir : 1;
  table.key = key;
  markSort();
}

function markSort() {
  for (const th of document.querySelectorAll('th[data-sort]')) {
    const sorted = th.dataset.sort === table.key;
    th.setAttribute('aria-sort', sorted ? (table.dir > 0 ? 'ascending' : 'descending') : 'none');
  }
}
`;
