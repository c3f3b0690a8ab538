/**
 * The status page script's grid: one dot per member, by name, on a canvas, which draws a thousand dots
 * in about a millisecond where as many elements would weigh on every render. Members that the search or
 * the filter leaves out are dimmed, not removed, so that the grid stays a picture of the whole cluster.
 */
export const SCRIPT_GRID = `
const grid = { list: [], cell: 0, cols: 1, colours: null };

function stateColours() {
  const style = getComputedStyle(document.documentElement);
  const colours = {};
  for (const state of STATES) colours[state] = style.getPropertyValue('--' + state).trim() || '#868e96';
  return colours;
}

function cellSize(count) {
  if (count <= 48) return 22;
  if (count <= 200) return 14;
  if (count <= 800) return 10;
  if (count <= 2000) return 7;
  return 5;
}

function drawGrid(shown) {
  const canvas = byId('grid');
  const width = byId('grid-box').clientWidth;
  const list = Array.from(model.members.values()).sort(byName);
  const cell = cellSize(list.length);
  const cols = Math.max(1, Math.floor(width / cell));
  const height = Math.max(1, Math.ceil(list.length / cols)) * cell;
  const ratio = window.devicePixelRatio || 1;
  canvas.width = Math.round(width * ratio);
  canvas.height = Math.round(height * ratio);
  canvas.style.width = width + 'px';
  canvas.style.height = height + 'px';
  const context = canvas.getContext('2d');
  context.setTransform(ratio, 0, 0, ratio, 0, 0);
  context.clearRect(0, 0, width, height);
  if (grid.colours === null) grid.colours = stateColours();
  const radius = cell * 0.38;
  for (let i = 0; i < list.length; i++) {
    const member = list[i];
    const x = (i % cols) * cell + cell / 2;
    const y = Math.floor(i / cols) * cell + cell / 2;
    context.globalAlpha = shown.has(member) ? 1 : 0.2;
    context.fillStyle = grid.colours[member.state] || grid.colours.left;
    context.beginPath();
    context.arc(x, y, radius, 0, 2 * Math.PI);
    context.fill();
    if (member.local) {
      context.globalAlpha = 1;
      context.strokeStyle = '#1c7ed6';
      context.lineWidth = 2;
      context.beginPath();
      context.arc(x, y, radius + 1.5, 0, 2 * Math.PI);
      context.stroke();
    }
  }
  grid.list = list;
  grid.cell = cell;
  grid.cols = cols;
}

function memberAt(event) {
  const box = byId('grid').getBoundingClientRect();
  const col = Math.floor((event.clientX - box.left) / grid.cell);
  const row = Math.floor((event.clientY - box.top) / grid.cell);
  if (col < 0 || col >= grid.cols || row < 0) return null;
  return grid.list[row * grid.cols + col] || null;
}

function showTip(event) {
  const member = memberAt(event);
  byId('grid-tip').textContent = member === null
    ? 'Hover a dot to see its member; click to search for it.'
    : member.name + ' · ' + member.state + ' · ' + member.address;
}
`;
