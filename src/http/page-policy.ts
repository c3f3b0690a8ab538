/**
 * The Content-Security-Policy of fdkit's pages (the status page and the lease lesson): each is one
 * document whose style and script are inline, and the policy lets exactly those run (by hash, so that a
 * script injected through a missed escape would not) and lets the page talk to its own origin only, so
 * that a stray external URL would be refused by the browser, not merely absent.
 */
import { createHash } from 'node:crypto';

/** A page and the policy to serve it with. */
export interface InlinePage {
  readonly html: string;
  readonly policy: string;
}

function hash(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/**
 * The policy for a page whose only script and style are `script` and `style`, inlined as they are.
 * `frame-ancestors` is left to the header (`sendPage`), since a `<meta>` policy cannot carry it.
 */
export function inlinePagePolicy(script: string, style: string): string {
  return [
    "default-src 'none'",
    `script-src ${hash(script)}`,
    `style-src ${hash(style)}`,
    "connect-src 'self'",
    'img-src data:',
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}
