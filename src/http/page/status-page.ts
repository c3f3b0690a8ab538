/**
 * The live status page served at `/` of the agent's HTTP server: one self-contained HTML document, its
 * style and script inline, which loads nothing from anywhere (operators' networks often reach no CDN)
 * and talks only to the server that served it, through `/v1/*` (docs/status-page.md).
 */
import { type InlinePage, inlinePagePolicy } from '../page-policy.js';
import { PAGE_BODY } from './markup.js';
import { PAGE_SCRIPT } from './script.js';
import { PAGE_STYLE } from './style.js';

let page: InlinePage | undefined;

function build(): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${inlinePagePolicy(PAGE_SCRIPT, PAGE_STYLE)}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    // An empty icon, or the browser asks the server for /favicon.ico.
    '<link rel="icon" href="data:,">',
    '<title>fdkit status</title>',
    `<style>${PAGE_STYLE}</style>`,
    '</head>',
    '<body>',
    PAGE_BODY,
    `<script>${PAGE_SCRIPT}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/**
 * The status page as one HTML document, and the policy to send with it (the same as its own `<meta>`
 * policy). Built on the first call and the same after that, so a server answers `GET /` with it at
 * no cost per request.
 */
export function statusPage(): InlinePage {
  page ??= { html: build(), policy: inlinePagePolicy(PAGE_SCRIPT, PAGE_STYLE) };
  return page;
}
