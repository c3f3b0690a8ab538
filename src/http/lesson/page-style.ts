/** The lesson page's style sheet, inlined into the page: the page loads nothing else. */
export const PAGE_STYLE = `
:root { color-scheme: light; --ink: #1d2430; --muted: #5b6675; --line: #d5dbe3; --a: #2f6fd6; --b: #8a4fd0;
  --pause: #f0a030; --ok: #1f8a4c; --bad: #c8312c; --paper: #f7f8fa; }
* { box-sizing: border-box; }
body { margin: 0; padding: 14px 24px; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif;
  color: var(--ink); background: #fff; }
h1 { margin: 0 0 2px; font-size: 20px; }
h2 { margin: 0 0 4px; font-size: 13px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
p { margin: 0 0 8px; }
.lead { color: var(--muted); max-width: 80em; }
#controls { display: flex; flex-wrap: wrap; gap: 12px 32px; align-items: center; margin: 8px 0;
  padding: 6px 14px; background: var(--paper); border: 1px solid var(--line); border-radius: 8px; }
#controls label { display: flex; align-items: center; gap: 8px; }
#controls input[type=range] { width: 220px; }
#controls input[type=number] { width: 90px; font: inherit; padding: 2px 4px; }
#verdict { font-size: 18px; font-weight: 600; padding: 4px 12px; border-radius: 6px; display: inline-block;
  margin: 2px 0 4px; }
#verdict.bad { color: #fff; background: var(--bad); }
#verdict.fenced { color: #fff; background: var(--ok); }
#verdict.once { color: var(--ink); background: #e4ecf7; }
#why { color: var(--muted); }
#error { color: var(--bad); font-weight: 600; }
#timeline { display: block; width: 100%; height: auto; border: 1px solid var(--line); border-radius: 8px;
  background: #fff; margin: 4px 0 8px; }
#timeline text { font: 12px system-ui, sans-serif; fill: var(--ink); }
#timeline .lane { font-size: 14px; font-weight: 600; }
#timeline .small { fill: var(--muted); }
.columns { display: grid; grid-template-columns: minmax(200px, 1fr) 4fr; gap: 24px; }
#steps { columns: 2 400px; column-gap: 28px; font-size: 13px; }
ul, ol { margin: 0; padding-left: 22px; }
li { margin: 0; line-height: 1.3; }
#steps li[data-outcome=refused] { color: var(--bad); font-weight: 600; }
#steps li[data-outcome=accepted] { color: var(--ok); }
#charges li { font-weight: 600; }
#charges li.none { color: var(--muted); font-weight: normal; }
.t { display: inline-block; min-width: 5em; color: var(--muted); font-variant-numeric: tabular-nums; }
.who { display: inline-block; min-width: 4.8em; font-weight: 600; }
footer { margin-top: 8px; color: var(--muted); font-size: 13px; }
`;
