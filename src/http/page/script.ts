/**
 * The status page's script: plain browser JavaScript, in strict mode and in one function scope, put
 * together from the parts below in the order they depend on each other. It is not compiled by tsc, so
 * it keeps to what every current browser runs as written.
 */
import { SCRIPT_CLOCK } from './script-clock.js';
import { SCRIPT_CONNECTION } from './script-connection.js';
import { SCRIPT_FORMAT } from './script-format.js';
import { SCRIPT_GRID } from './script-grid.js';
import { SCRIPT_MODEL } from './script-model.js';
import { SCRIPT_PANELS } from './script-panels.js';
import { SCRIPT_TABLE } from './script-table.js';

// Renders are coalesced to one per frame: a burst of a thousand events costs one render, not a thousand.
const SCRIPT_MAIN = `
let scheduled = false;
let rowsScheduled = false;

function render() {
  scheduled = false;
  const now = clock.now();
  filterMembers();
  renderRows(now);
  renderSummary();
  drawGrid(new Set(table.list));
  renderSelf(now);
  renderConnection();
  renderSuspicions();
  renderTimeline();
}

function changed() {
  if (scheduled) return;
  scheduled = true;
  requestAnimationFrame(render);
}

function scrolled() {
  if (rowsScheduled) return;
  rowsScheduled = true;
  requestAnimationFrame(function () {
    rowsScheduled = false;
    renderRows(clock.now());
  });
}

byId('search').addEventListener('input', changed);
byId('state-filter').addEventListener('change', changed);
for (const chip of document.querySelectorAll('.chip')) {
  chip.addEventListener('click', function () {
    byId('state-filter').value = chip.dataset.filter;
    changed();
  });
}
for (const th of document.querySelectorAll('th[data-sort]')) {
  th.addEventListener('click', function () {
    sortBy(th.dataset.sort);
    changed();
  });
}
byId('table-scroll').addEventListener('scroll', scrolled, { passive: true });
window.addEventListener('resize', changed);
byId('grid').addEventListener('mousemove', showTip);
byId('grid').addEventListener('click', function (event) {
  const member = memberAt(event);
  if (member === null) return;
  byId('search').value = member.name;
  changed();
});

markSort();
// Every second: a fresh snapshot, and a render for the ages ("12 s ago") even when nothing happened.
clock.every(POLL_MS, function () {
  poll();
  changed();
});
poll();
connect();
changed();
`;

/** The whole script, ready to inline in a `<script>` element. */
export const PAGE_SCRIPT = [
  '(function () {',
  "'use strict';",
  SCRIPT_CLOCK,
  SCRIPT_FORMAT,
  SCRIPT_MODEL,
  SCRIPT_CONNECTION,
  SCRIPT_TABLE,
  SCRIPT_GRID,
  SCRIPT_PANELS,
  SCRIPT_MAIN,
  '})();',
].join('\n');
