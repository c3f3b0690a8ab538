/**
 * The lesson page: one HTML document with its style and script inline, so that it works where the
 * network reaches nothing but this server. Its Content-Security-Policy allows exactly that inline style
 * and script (by hash) and requests to its own origin, so a stray external URL would be refused by the
 * browser, not only absent.
 */
import { type InlinePage, inlinePagePolicy } from '../page-policy.js';
import { PAGE_SCRIPT } from './page-script.js';
import { PAGE_STYLE } from './page-style.js';

const BODY = `
<header>
  <h1>Leases need fencing: the frozen lock holder</h1>
  <p class="lead">Client A holds the lease on <b>invoice-42</b>, reads it (not charged yet) and freezes in a
  GC pause. When the term runs out, the lock service gives the lease to client B, which reads the invoice
  10 ms later and charges it 20 ms after that. Then A wakes and writes its charge. Move the pause against
  the term, then turn on the storage's fencing check.</p>
</header>
<section id="controls" aria-label="the scenario">
  <label>A's GC pause
    <input type="range" id="pause-range" min="0" max="5000" step="10" value="2000" aria-label="pause slider">
    <input type="number" id="pause-ms" min="0" max="600000" step="1" value="2000"> ms</label>
  <label>lease term
    <input type="range" id="term-range" min="100" max="5000" step="10" value="1000" aria-label="term slider">
    <input type="number" id="term-ms" min="100" max="600000" step="1" value="1000"> ms</label>
  <label><input type="checkbox" id="fencing"> the storage checks fencing tokens</label>
</section>
<p id="verdict" role="status" aria-live="polite">running the lesson…</p>
<p id="why"></p>
<p id="error" role="alert" hidden></p>
<svg id="timeline" viewBox="0 0 1000 268" role="img" aria-label="the timeline of clients A and B and the storage"></svg>
<div class="columns">
  <section><h2>Charges</h2><ul id="charges"></ul></section>
  <section><h2>Steps</h2><ol id="steps"></ol></section>
</div>
<footer>Each change runs fdkit's real FencingGuard and lease state on a virtual clock, on this server:
no etcd, no wall time, the same timeline every time. A double charge happens exactly when the pause is
longer than the term plus B's 10 ms before its read.</footer>`;

/** Builds the page; the hashes in its policy are of the exact text inlined. */
export function lessonPage(): InlinePage {
  const html =
    '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">\n' +
    '<title>fdkit: the lease lesson</title>\n<link rel="icon" href="data:,">\n' +
    `<style>${PAGE_STYLE}</style>\n</head>\n<body>${BODY}\n<script>${PAGE_SCRIPT}</script>\n</body>\n</html>\n`;
  return { html, policy: inlinePagePolicy(PAGE_SCRIPT, PAGE_STYLE) };
}
