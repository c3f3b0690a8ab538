/**
 * The status page's stylesheet. The state colours are custom properties, which the grid's canvas reads
 * back, so that a dot and a table badge of one state can never differ.
 */
export const PAGE_STYLE = `
:root {
  --alive: #2f9e44; --suspect: #e8a600; --dead: #d6336c; --left: #868e96;
  --bg: #f8f9fa; --panel: #ffffff; --ink: #212529; --muted: #6c757d; --line: #dee2e6; --accent: #1c7ed6;
  color-scheme: light;
  font: 13px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
}
* { box-sizing: border-box; }
body { margin: 0; height: 100vh; display: flex; flex-direction: column; background: var(--bg); color: var(--ink); }
header, #summary { display: flex; align-items: center; gap: 12px; padding: 8px 16px; flex-wrap: wrap; }
header { background: #212529; color: #f8f9fa; }
header h1 { font-size: 16px; margin: 0; font-weight: 600; }
header .self { font-family: ui-monospace, Menlo, Consolas, monospace; }
header .spacer { flex: 1; }
#summary { background: var(--panel); border-bottom: 1px solid var(--line); }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-weight: 600; font-size: 12px;
  background: var(--left); color: #fff; white-space: nowrap; }
.badge[data-state="live"], .badge[data-state="ready"] { background: var(--alive); }
.badge[data-state="reconnecting"], .badge[data-state="degraded"], .badge[data-state="connecting"] { background: var(--suspect); color: #212529; }
.badge[data-state="disconnected"], .badge[data-state="unauthorized"] { background: var(--dead); }
.chip { border: 1px solid var(--line); border-radius: 12px; padding: 2px 10px; background: var(--panel);
  cursor: pointer; font: inherit; color: inherit; }
.chip b { font-variant-numeric: tabular-nums; }
.chip[aria-pressed="true"] { border-color: var(--accent); box-shadow: 0 0 0 1px var(--accent) inset; }
.dot { display: inline-block; width: 9px; height: 9px; border-radius: 50%; margin-right: 5px; vertical-align: 0; }
.s-alive { --c: var(--alive); } .s-suspect { --c: var(--suspect); } .s-dead { --c: var(--dead); } .s-left { --c: var(--left); }
.dot, .state { background: var(--c, var(--left)); }
.state { color: #fff; border-radius: 3px; padding: 0 6px; font-weight: 600; font-size: 12px; }
.state.s-suspect { color: #212529; }
input[type="search"], select { font: inherit; padding: 3px 6px; border: 1px solid var(--line); border-radius: 4px; }
input[type="search"] { width: 220px; }
#shown { color: var(--muted); }
main { flex: 1; min-height: 0; display: flex; gap: 12px; padding: 12px 16px; }
.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; }
.panel h2 { font-size: 12px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); margin: 0 0 6px; }
#table-panel { flex: 1; min-width: 0; display: flex; flex-direction: column; padding: 0; }
#table-scroll { flex: 1; min-height: 0; overflow: auto; }
table { border-collapse: separate; border-spacing: 0; width: 100%; table-layout: fixed; }
th, td { text-align: left; padding: 0 8px; height: 26px; white-space: nowrap; overflow: hidden;
  text-overflow: ellipsis; border-bottom: 1px solid var(--line); }
th { position: sticky; top: 0; background: #f1f3f5; font-weight: 600; cursor: pointer; user-select: none; z-index: 1; }
th[aria-sort="ascending"]::after { content: " \\25B2"; font-size: 9px; }
th[aria-sort="descending"]::after { content: " \\25BC"; font-size: 9px; }
.w-mark { width: 28px; } .w-name { width: 124px; } .w-address { width: 156px; } .w-state { width: 86px; }
.w-inc { width: 44px; } .w-since { width: 96px; } .w-rtt { width: 64px; } .w-phi { width: 48px; } .w-accuser { width: 124px; }
td { font-variant-numeric: tabular-nums; }
td.mono { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; }
tr.pad td { border: 0; padding: 0; height: auto; }
tr.local td { background: #e7f5ff; }
td.muted, .muted { color: var(--muted); }
#empty { padding: 16px; color: var(--muted); }
aside { width: 340px; flex: none; display: flex; flex-direction: column; gap: 12px; min-height: 0; overflow: auto; }
dl { display: grid; grid-template-columns: auto 1fr; gap: 2px 12px; margin: 0; }
dt { color: var(--muted); } dd { margin: 0; font-variant-numeric: tabular-nums; overflow-wrap: anywhere; }
#grid-box { position: relative; }
#grid { display: block; cursor: crosshair; }
#grid-tip { min-height: 1.4em; margin: 4px 0 0; color: var(--muted); overflow-wrap: anywhere; }
ul, ol { list-style: none; margin: 0; padding: 0; }
#suspicions li { padding: 1px 0; overflow-wrap: anywhere; }
#timeline-panel { flex: 1; min-height: 160px; display: flex; flex-direction: column; }
#timeline { flex: 1; min-height: 0; overflow: auto; font-size: 12px; }
#timeline li { padding: 2px 0; border-bottom: 1px solid #f1f3f5; overflow-wrap: anywhere; }
#timeline time { color: var(--muted); font-family: ui-monospace, Menlo, Consolas, monospace; margin-right: 6px; }
#timeline .who { font-weight: 600; }
`;
