/**
 * The status page as a string: self-contained (nothing it could load from anywhere), well formed, its
 * script valid strict JavaScript that never parses data as markup, and its content security policy the
 * hash of what it inlines. The browser tests (status-page.system.test.ts) show that it also works.
 */
import { createHash } from 'node:crypto';
import { Script } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { statusPage } from '../../src/http/page/status-page.js';

const VOID = new Set(['meta', 'link', 'input', 'col', 'br', 'img', 'hr']);
const RAW = new Set(['script', 'style']);

/** The text between `<tag>` and `</tag>`, for each such element. */
function contents(html: string, tag: string): string[] {
  return [...html.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))].map((m) => m[1]!);
}

/**
 * The problems of the document's element structure, by a small tokenizer: every element closed in
 * order (void ones excepted), script and style read as raw text, no stray `<`, and one root `html`.
 */
function structureProblems(html: string): string[] {
  const problems: string[] = [];
  const open: string[] = [];
  const body = html.replace(/^<!doctype html>\s*/i, '');
  const tag = /<(\/?)([a-z][a-z0-9-]*)((?:\s+[a-z-]+(?:="[^"]*")?)*)\s*>|<!--[\s\S]*?-->/gy;
  let at = 0;
  while (at < body.length) {
    const next = body.indexOf('<', at);
    if (next < 0) break;
    tag.lastIndex = next;
    const m = tag.exec(body);
    if (m === null) {
      problems.push(`stray '<' at ${next}: ${body.slice(next, next + 30)}`);
      at = next + 1;
      continue;
    }
    at = tag.lastIndex;
    const [, closing, name] = m;
    if (name === undefined) continue;
    if (closing === '/') {
      const top = open.pop();
      if (top !== name) problems.push(`</${name}> closes <${top}>`);
    } else if (RAW.has(name)) {
      const end = body.indexOf(`</${name}>`, at);
      if (end < 0) problems.push(`<${name}> is never closed`);
      at = end < 0 ? body.length : end + name.length + 3;
    } else if (!VOID.has(name)) {
      if (open.length === 0 && name !== 'html') problems.push(`<${name}> outside <html>`);
      open.push(name);
    }
  }
  if (open.length > 0) problems.push(`unclosed: ${open.join(' ')}`);
  return problems;
}

const { html, policy: headerPolicy } = statusPage();
const [script] = contents(html, 'script');
const [style] = contents(html, 'style');

describe('statusPage', () => {
  it('builds the page once and returns that same string after', () => {
    expect(statusPage().html).toBe(html);
    expect(html.startsWith('<!doctype html>\n<html lang="en">')).toBe(true);
  });

  it('names no other host: no URL of any scheme but data:, no external script, stylesheet or font', () => {
    expect(html.match(/\bhttps?:\/\/[^\s"'`<>)]*/gi) ?? []).toEqual([]);
    expect(html.match(/\/\/[a-z0-9.-]+\.[a-z]{2,}/gi) ?? []).toEqual([]);
    expect(html).not.toMatch(/<script\b[^>]*\bsrc\s*=/i);
    expect(html).not.toMatch(/<link\b[^>]*\bhref\s*=\s*"(?!data:)/i);
    expect(html).not.toMatch(/<link\b(?![^>]*\bhref="data:)/i);
    expect(style).not.toMatch(/@import|@font-face|url\(/i);
    expect(html).not.toMatch(/\b(?:src|href|action|poster)\s*=\s*"(?!data:)/i);
  });

  it('parses: elements nest and close, and the one script and the one style are where they belong', () => {
    expect(structureProblems(html)).toEqual([]);
    expect(contents(html, 'script')).toHaveLength(1);
    expect(contents(html, 'style')).toHaveLength(1);
    expect(html.indexOf('<style>')).toBeLessThan(html.indexOf('</head>'));
    expect(html.indexOf('<script>')).toBeGreaterThan(html.indexOf('<tbody id="rows">'));
    // The tokenizer finds what it should: a stray '<' and a misnested close.
    expect(structureProblems('<html><b><i></b></i></html>')).toEqual(['</b> closes <i>', '</i> closes <b>']);
    expect(structureProblems('<html>a < b</html>')).toHaveLength(1);
  });

  it('has a script that compiles as strict JavaScript and ends no element early', () => {
    expect(script).toBeDefined();
    expect(() => new Script(script!)).not.toThrow();
    expect(script!.startsWith("(function () {\n'use strict';")).toBe(true);
    expect(script).not.toMatch(/<\/(script|style)/i);
    // Strict mode is real: the same script fails to compile once a strict-only error is added.
    expect(() => new Script(script!.replace("'use strict';", "'use strict'; with (Math) {}"))).toThrow();
  });

  it('builds the DOM from text, never by parsing data as HTML', () => {
    expect(script).not.toMatch(
      /innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function/,
    );
    expect(script).toMatch(/textContent/);
  });

  it('finds every element its script asks for by id in the markup', () => {
    const ids = new Set([...html.matchAll(/\bid="([^"]+)"/g)].map((m) => m[1]!));
    const asked = [...script!.matchAll(/byId\('([^']+)'\)/g)].map((m) => m[1]!);
    expect(asked.length).toBeGreaterThan(15);
    expect(asked.filter((id) => !ids.has(id))).toEqual([]);
    for (const state of ['alive', 'suspect', 'dead', 'left']) expect(ids).toContain(`count-${state}`);
  });

  it('lets the browser run only its own script and style, by hash, and fetch only from its origin', () => {
    const policy = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1];
    const hash = (text: string): string => createHash('sha256').update(text).digest('base64');
    expect(policy?.split('; ')).toEqual([
      "default-src 'none'",
      `script-src 'sha256-${hash(script!)}'`,
      `style-src 'sha256-${hash(style!)}'`,
      "connect-src 'self'",
      'img-src data:',
      "base-uri 'none'",
      "form-action 'none'",
    ]);
    // The header a server sends carries the same policy as the page's own <meta>.
    expect(headerPolicy).toBe(policy);
    // Style attributes would need 'unsafe-inline': the markup has none, the script sets styles through the DOM.
    expect(html).not.toMatch(/\sstyle="/);
  });
});
