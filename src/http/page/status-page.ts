/**
 * The live status page served at `/` of the agent's HTTP server: one self-contained HTML document, its
 * style and script inline, which loads nothing from anywhere (operators' networks often reach no CDN)
 * and talks only to the server that served it, through `/v1/*` (docs/status-page.md).
 */
import { createHash } from 'node:crypto';
import { PAGE_BODY } from './markup.js';
import { PAGE_SCRIPT } from './script.js';
import { PAGE_STYLE } from './style.js';

let page: string | undefined;

function sha256(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/**
 * The policy of the page's own `<meta>`: the browser refuses any load but the inline script and style
 * (by hash, so that no injected script could run even if an escape were missed) and requests to the
 * page's own origin.
 */
function contentSecurityPolicy(): string {
  return [
    "default-src 'none'",
    `script-src ${sha256(PAGE_SCRIPT)}`,
    `style-src ${sha256(PAGE_STYLE)}`,
    "connect-src 'self'",
    'img-src data:',
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

function build(): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy()}">`,
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
 * The status page as one HTML document. It is built on the first call and the same string is returned
 * after that, so a server can answer `GET /` with it at no cost per request. Send it as
 * `text/html; charset=utf-8`.
 */
export function statusPageHtml(): string {
  page ??= build();
  return page;
}
