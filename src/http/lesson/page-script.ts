/**
 * The lesson page's script, inlined into the page. It asks the server to run the lesson whenever an input
 * changes and draws what comes back: it computes nothing of the lesson itself, so the page cannot tell a
 * different story from the library's. It builds the DOM with `textContent` only, and draws the timeline
 * as SVG. `document.body.dataset.shown` holds the query of the run on screen, for a test to wait on.
 */
export const PAGE_SCRIPT = String.raw`
'use strict';
const $ = (id) => document.getElementById(id);
const svg = $('timeline');
// Taken from the parsed <svg> so that the page names no URL, not even the SVG namespace.
const NS = svg.namespaceURI;
const fields = {
  pause: { range: $('pause-range'), number: $('pause-ms') },
  term: { range: $('term-range'), number: $('term-ms') },
};
const fencing = $('fencing');
let latest = 0;

function html(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

function draw(parent, tag, attrs, text) {
  const node = document.createElementNS(NS, tag);
  for (const key of Object.keys(attrs)) node.setAttribute(key, String(attrs[key]));
  if (text !== undefined) node.textContent = text;
  parent.appendChild(node);
  return node;
}

function query() {
  return 'pause=' + encodeURIComponent(fields.pause.number.value) +
    '&term=' + encodeURIComponent(fields.term.number.value) +
    '&fencing=' + (fencing.checked ? '1' : '0');
}

async function run() {
  const q = query();
  const mine = ++latest;
  let status;
  let body;
  try {
    const response = await fetch('/lesson/run?' + q, { headers: { Accept: 'application/json' } });
    status = response.status;
    body = await response.json();
  } catch (error) {
    if (mine === latest) showError('the server did not answer (' + error.message + ')', q);
    return;
  }
  // A slider dragged fast sends many runs; only the newest may reach the screen.
  if (mine !== latest) return;
  if (status !== 200) {
    showError(body && body.error ? body.error.message : 'HTTP ' + status, q);
    return;
  }
  $('error').hidden = true;
  render(body);
  document.body.dataset.shown = q;
}

function showError(message, q) {
  const error = $('error');
  error.textContent = message;
  error.hidden = false;
  document.body.dataset.shown = q;
}

const isCharge = (s) => s.actor === 'storage' && / charge$/.test(s.action);

function render(result) {
  const refused = result.steps.filter((s) => isCharge(s) && s.outcome === 'refused');
  const verdict = $('verdict');
  if (result.doubleCharge) {
    verdict.textContent = 'Charged twice: A\'s stale write went through after B\'s';
    verdict.className = 'bad';
  } else if (refused.length > 0) {
    verdict.textContent = 'Stale write refused: charged once';
    verdict.className = 'fenced';
  } else {
    verdict.textContent = 'Charged once';
    verdict.className = 'once';
  }
  verdict.dataset.charges = String(result.charges);
  $('why').textContent = why(result);
  const charges = $('charges');
  charges.replaceChildren();
  for (const s of result.steps.filter((x) => isCharge(x) && x.outcome === 'accepted')) {
    charges.appendChild(html('li', s.action + ' at ' + s.t + ' ms, token ' + s.token));
  }
  if (result.charges === 0) charges.appendChild(html('li', 'none', 'none'));
  const steps = $('steps');
  steps.replaceChildren();
  for (const s of result.steps) {
    const item = html('li');
    item.appendChild(html('span', s.t + ' ms', 't'));
    item.appendChild(html('span', s.actor, 'who'));
    let text = s.action;
    if (s.token !== undefined) text += ' (token ' + s.token + ')';
    if (s.outcome !== undefined) text += ': ' + s.outcome;
    item.appendChild(document.createTextNode(text));
    if (s.outcome !== undefined) item.dataset.outcome = s.outcome;
    steps.appendChild(item);
  }
  timeline(result);
}

function why(result) {
  const { pauseMs, termMs } = result.input;
  const read = result.steps.find((s) => s.actor === 'B' && s.action.startsWith('reads'));
  if (pauseMs < termMs) {
    return 'A woke at ' + pauseMs + ' ms, inside its ' + termMs + ' ms term: it wrote, released, and B found the invoice charged.';
  }
  const late = 'A\'s lease ran out at ' + termMs + ' ms, but A was paused and could not know it; ';
  if (read && read.action.indexOf('already') !== -1) {
    return late + 'it wrote at ' + pauseMs + ' ms, before B read at ' + read.t + ' ms, so B saw the charge: luck, not safety.';
  }
  if (result.doubleCharge) {
    return late + 'B read "not charged" at ' + (read ? read.t : '?') + ' ms and charged; A woke at ' + pauseMs + ' ms and charged again.';
  }
  return late + 'B holds token 2 and claimed it at the storage, which refuses A\'s write with the older token 1.';
}

function niceSpan(t) {
  const rough = Math.max(100, t * 1.08 + 40);
  const unit = Math.pow(10, Math.floor(Math.log10(rough)));
  for (const m of [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) if (m * unit >= rough) return m * unit;
  return 10 * unit;
}

function timeline(result) {
  svg.replaceChildren();
  const left = 90;
  const right = 945;
  const lanes = { A: 72, B: 138, storage: 202 };
  const axis = 242;
  const last = result.steps.reduce((m, s) => Math.max(m, s.t), result.input.termMs);
  const span = niceSpan(last);
  const x = (t) => left + (t / span) * (right - left);
  // A label near the right edge ends at its mark instead of starting there.
  const label = (t, y, text, attrs) => {
    const end = x(t) > right - 190;
    return draw(svg, 'text', Object.assign({ x: end ? x(t) - 12 : x(t) + 12, y: y, 'text-anchor': end ? 'end' : 'start' }, attrs || {}), text);
  };
  for (const name of Object.keys(lanes)) {
    draw(svg, 'line', { x1: left, x2: right, y1: lanes[name], y2: lanes[name], stroke: '#d5dbe3' });
    draw(svg, 'text', { x: 12, y: lanes[name] + 5, class: 'lane' }, name === 'storage' ? 'storage' : 'client ' + name);
  }
  draw(svg, 'line', { x1: left, x2: right, y1: axis, y2: axis, stroke: '#5b6675' });
  for (let i = 0; i <= 5; i++) {
    const t = (span / 5) * i;
    draw(svg, 'line', { x1: x(t), x2: x(t), y1: axis, y2: axis + 6, stroke: '#5b6675' });
    draw(svg, 'text', { x: x(t), y: axis + 20, 'text-anchor': 'middle', class: 'small' }, Math.round(t) + ' ms');
  }
  const term = result.input.termMs;
  draw(svg, 'line', { x1: x(term), x2: x(term), y1: 20, y2: axis, stroke: '#c8312c', 'stroke-dasharray': '5 4' });
  draw(svg, 'text', { x: x(term) + 4, y: 15, fill: '#c8312c' }, 'term ends (' + term + ' ms)');
  const at = (pred) => result.steps.find(pred);
  const aEnd = at((s) => s.actor === 'lock' && (s.action === 'A\'s lease expires' || s.action === 'A releases the lease'));
  const aLeaseEnd = aEnd ? aEnd.t : span;
  draw(svg, 'rect', { x: x(0), y: lanes.A - 30, width: Math.max(2, x(aLeaseEnd) - x(0)), height: 7, rx: 3, fill: '#2f6fd6' });
  draw(svg, 'text', { x: x(0), y: lanes.A - 35 }, 'A holds the lease, token 1');
  const grantB = at((s) => s.actor === 'lock' && s.action === 'grants the lease to B');
  if (grantB) {
    draw(svg, 'rect', { x: x(grantB.t), y: lanes.B - 28, width: right - x(grantB.t), height: 7, rx: 3, fill: '#8a4fd0' });
    draw(svg, 'text', { x: x(grantB.t), y: lanes.B - 33 }, 'B holds the lease, token ' + grantB.token);
  }
  const sleep = at((s) => s.actor === 'A' && s.action.indexOf('pause begins') !== -1);
  const wake = at((s) => s.actor === 'A' && s.action.startsWith('wakes'));
  if (sleep && wake) {
    draw(svg, 'rect', { x: x(sleep.t), y: lanes.A - 11, width: Math.max(2, x(wake.t) - x(sleep.t)), height: 22, rx: 4, fill: '#f0a030', opacity: 0.85 });
    draw(svg, 'text', { x: x(sleep.t) + 6, y: lanes.A + 4 }, 'GC pause ' + (wake.t - sleep.t) + ' ms');
  }
  let row = 0;
  for (const s of result.steps) {
    if (s.actor === 'B' && s.action.startsWith('reads')) {
      draw(svg, 'circle', { cx: x(s.t), cy: lanes.B, r: 5, fill: '#8a4fd0' });
      label(s.t, lanes.B + 4, 'B ' + s.action, { class: 'small' });
    }
    if (s.actor === 'storage' && s.action === 'B claims its token') {
      const cy = lanes.storage - 24;
      draw(svg, 'rect', { x: x(s.t) - 5, y: cy - 5, width: 10, height: 10, fill: '#8a4fd0', transform: 'rotate(45 ' + x(s.t) + ' ' + cy + ')' });
      draw(svg, 'text', { x: x(s.t) - 10, y: cy + 4, 'text-anchor': 'end', class: 'small' }, 'B claims token ' + s.token);
    }
    if (!isCharge(s)) continue;
    const who = s.action.charAt(0);
    const ok = s.outcome === 'accepted';
    const colour = ok ? '#1f8a4c' : '#c8312c';
    const path = draw(svg, 'line', { x1: x(s.t), x2: x(s.t), y1: lanes[who] + 12, y2: lanes.storage - 10, stroke: colour, 'stroke-width': 2 });
    path.dataset.write = who;
    const mark = draw(svg, 'circle', { cx: x(s.t), cy: lanes.storage, r: 9, fill: colour });
    mark.dataset.outcome = s.outcome;
    draw(svg, 'text', { x: x(s.t), y: lanes.storage + 4, 'text-anchor': 'middle', fill: '#fff', 'font-weight': 700 }, ok ? '\u2713' : '\u2717');
    label(s.t, lanes.storage + 24 + 13 * (row++ % 2), who + '\'s write (token ' + s.token + ') ' + s.outcome, { fill: colour });
  }
}

for (const name of Object.keys(fields)) {
  const { range, number } = fields[name];
  range.addEventListener('input', () => { number.value = range.value; run(); });
  number.addEventListener('input', () => { range.value = number.value; run(); });
}
fencing.addEventListener('change', run);
run();
`;
