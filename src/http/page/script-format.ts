/**
 * The status page script's helpers for text and elements. Every value is written with `textContent` or
 * an attribute, never parsed as markup, because member names and metadata come from the members.
 */
export const SCRIPT_FORMAT = `
const STATES = ['alive', 'suspect', 'dead', 'left'];

function byId(id) { return document.getElementById(id); }

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function pad2(n) { return n < 10 ? '0' + n : String(n); }

// "12 s ago": the age of a wall time against the browser's clock.
function ago(t, now) {
  if (t === null || t === undefined) return '—';
  const s = Math.floor((now - t) / 1000);
  if (s < 1) return 'just now';
  if (s < 60) return s + ' s ago';
  if (s < 3600) return Math.floor(s / 60) + ' min ago';
  if (s < 86400) return Math.floor(s / 3600) + ' h ago';
  return Math.floor(s / 86400) + ' d ago';
}

function timeOfDay(t) {
  const d = new Date(t);
  return pad2(d.getHours()) + ':' + pad2(d.getMinutes()) + ':' + pad2(d.getSeconds());
}

function formatRtt(member) {
  if (member.rttMs === null || member.rttMs === undefined) return '—';
  return (member.rttMs < 10 ? member.rttMs.toFixed(1) : String(Math.round(member.rttMs))) + ' ms';
}

function formatPhi(member) { return member.phi > 0 ? member.phi.toFixed(1) : '—'; }

// "n3 +2": the accuser and the independent confirmations of its suspicion.
function formatAccusation(member) {
  const extra = member.confirmations > 0 ? ' +' + member.confirmations : '';
  if (member.accuser) return member.accuser + extra;
  return extra.trim();
}

function formatMeta(member) {
  if (!member.meta) return '';
  return member.metaEncoding === 'base64' ? 'base64:' + member.meta : member.meta;
}

function stateBadge(state) { return el('span', 'state s-' + state, state); }
`;
