/**
 * The status page in a real browser, against the fixture server: what it shows, how fast a transition
 * reaches it without a reload, that it stays usable at a thousand members, that it talks to no host but
 * the one that served it, and that it carries a token given in its address to every request.
 */
// tier: system (drives a Chromium process through playwright-core)
import type { Browser, BrowserContext, ConsoleMessage, Page, Request } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { MemberStateName } from '../../src/membership/member-state.js';
import { launchChromium } from '../support/chromium.js';
import { StatusFixture, type StatusFixtureOptions } from './status-fixture.js';

const WITHIN = { timeout: 2000 };
const ROWS = `[...document.querySelectorAll('#rows tr.m')].map((tr) => ({
  name: tr.dataset.name, state: tr.dataset.state, cells: [...tr.cells].map((td) => td.textContent) }))`;

/** Scrolls the table down by its height and waits two frames for the rows; false at the bottom. */
const SCROLL_ONE_SCREEN = `(async () => {
  const box = document.getElementById('table-scroll');
  const before = box.scrollTop;
  box.scrollTop += box.clientHeight;
  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  return box.scrollTop > before;
})()`;

interface Row {
  readonly name: string;
  readonly state: MemberStateName;
  readonly cells: readonly string[];
}

interface Opened {
  readonly page: Page;
  /** Every URL the page requested. */
  readonly urls: string[];
  /** Uncaught errors and console errors. */
  readonly errors: string[];
}

let browser: Browser;
let context: BrowserContext;
// One tab for the file: a new one costs a renderer process, most of a test's time on a busy machine.
let page: Page;
const fixtures: StatusFixture[] = [];
const listeners: (() => void)[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  // Bounds every wait of a locator, which would otherwise wait 30 s for a missing element.
  context.setDefaultTimeout(2000);
  page = await context.newPage();
});

afterEach(async () => {
  for (const off of listeners.splice(0)) off();
  // Leaves the fixture's page, which closes its stream, before the fixture closes.
  await page.goto('about:blank');
  for (const fixture of fixtures.splice(0)) await fixture.close();
});

afterAll(async () => {
  await browser?.close();
});

async function fixture(options: StatusFixtureOptions = {}): Promise<StatusFixture> {
  const started = await StatusFixture.start(options);
  fixtures.push(started);
  return started;
}

async function open(server: StatusFixture, path = '/'): Promise<Opened> {
  const urls: string[] = [];
  const errors: string[] = [];
  const onRequest = (request: Request): void => {
    urls.push(request.url());
  };
  const onError = (error: Error): void => {
    errors.push(error.message);
  };
  const onConsole = (message: ConsoleMessage): void => {
    // Chromium logs every answer that is not a 2xx; a 404 of /v1/leader is how a server says it has no hint.
    if (message.type() === 'error' && !/status of 404 \(Not Found\)$/.test(message.text())) {
      errors.push(message.text());
    }
  };
  page.on('request', onRequest);
  page.on('pageerror', onError);
  page.on('console', onConsole);
  listeners.push(
    () => page.off('request', onRequest),
    () => page.off('pageerror', onError),
    () => page.off('console', onConsole),
  );
  await page.goto(server.origin + path);
  return { page, urls, errors };
}

function rows(page: Page): Promise<Row[]> {
  return page.evaluate<Row[]>(ROWS);
}

async function text(page: Page, selector: string): Promise<string> {
  return (await page.locator(selector).first().textContent()) ?? '';
}

/** Waits for the page to show `count` members and a live stream the fixture knows of. */
async function ready(page: Page, server: StatusFixture, count: number): Promise<void> {
  await expect.poll(() => text(page, '#count-total'), WITHIN).toBe(String(count));
  await expect.poll(() => page.locator('#conn').getAttribute('data-state'), WITHIN).toBe('live');
  expect(server.openStreams).toBe(1);
}

function cluster(server: StatusFixture, names: readonly string[]): void {
  for (const [i, name] of names.entries()) {
    server.add(name, { address: `10.0.0.${i + 1}:7946`, local: i === 0, rttMs: 0.8 + i, phi: 0.2 * i });
  }
  server.self = { ...server.self, name: names[0]!, address: '10.0.0.1:7946' };
}

function expectOnlyOrigin(opened: Opened, server: StatusFixture): void {
  expect(opened.urls.length).toBeGreaterThan(0);
  expect(opened.urls.filter((url) => !url.startsWith(`${server.origin}/`))).toEqual([]);
}

const FIVE = ['n1', 'n2', 'n3', 'n4', 'n5'];

describe('the status page', () => {
  it('shows five members as five rows with their state, this member, its health and the leader hint', async () => {
    const server = await fixture();
    cluster(server, FIVE);
    const opened = await open(server);
    const { page } = opened;
    await ready(page, server, 5);

    const shown = await rows(page);
    expect(shown.map((r) => r.name)).toEqual(FIVE);
    expect(shown.map((r) => r.state)).toEqual(['alive', 'alive', 'alive', 'alive', 'alive']);
    // Columns: local marker, name, address, state, incarnation, since, RTT, phi, accuser, meta.
    expect(shown[0]!.cells.slice(0, 5)).toEqual(['\u2605', 'n1', '10.0.0.1:7946', 'alive', '1']);
    expect(shown[1]!.cells[0]).toBe('');
    expect(shown[2]!.cells.slice(6, 8)).toEqual(['2.8 ms', '0.4']);
    expect(shown[0]!.cells[5]).toMatch(/^(just now|\d+ s ago)$/);
    expect(await text(page, '#count-alive')).toBe('5');
    expect(await text(page, '#count-dead')).toBe('0');
    expect(await text(page, '#self-name')).toBe('n1');
    expect(await text(page, '#self-health')).toBe('0 (healthy)');
    expect(await text(page, '#health-status')).toBe('health: ready');
    expect(await text(page, '#leader')).toBe('no hint configured');
    expect(opened.errors).toEqual([]);
    expectOnlyOrigin(opened, server);
  });

  it('writes what members say about themselves as text, never as markup', async () => {
    const server = await fixture();
    cluster(server, FIVE);
    const evil = '<img src=x onerror="document.title=1">';
    server.add(evil, { meta: '<b>bold</b><script>1</script>' });
    const { page } = await open(server);
    await expect.poll(() => text(page, '#count-total'), WITHIN).toBe('6');
    const row = (await rows(page)).find((r) => r.name === evil);
    expect(row?.cells.slice(1, 2)).toEqual([evil]);
    expect(row?.cells[9]).toBe('<b>bold</b><script>1</script>');
    expect(await page.locator('#rows img, #rows b, #rows script').count()).toBe(0);
    expect(await page.title()).toBe('fdkit status');
  });

  it('turns a row dead within 2 s of the event, without a reload, and logs it on the timeline', async () => {
    const server = await fixture();
    cluster(server, FIVE);
    const opened = await open(server);
    const { page } = opened;
    await ready(page, server, 5);
    await page.evaluate('window.__sameDocument = true');
    expect((await rows(page)).find((r) => r.name === 'n3')?.state).toBe('alive');
    expect(await page.locator('#timeline li').count()).toBe(0);

    server.transition('n3', 'dead', { accuser: 'n2', confirmations: 2, cause: 'suspicion-timeout' });
    // Polled from Node: a predicate polled inside the page is an eval, which the page's policy refuses.
    await expect
      .poll(() => page.evaluate(`document.querySelector('#rows tr[data-name="n3"]')?.dataset.state`), WITHIN)
      .toBe('dead');
    const n3 = (await rows(page)).find((r) => r.name === 'n3')!;
    expect(n3.cells[3]).toBe('dead');
    expect(n3.cells[8]).toBe('n2 +2');
    expect(await text(page, '#count-dead')).toBe('1');
    expect(await text(page, '#count-alive')).toBe('4');
    // Only the stream writes the timeline, so the entry shows the change came over SSE.
    const entry = page.locator('#timeline li[data-member="n3"]');
    await expect.poll(() => entry.getAttribute('data-type'), WITHIN).toBe('dead');
    expect(await entry.textContent()).toContain('alive \u2192 dead · suspicion-timeout · by n2 +2');
    expect(await text(page, '#suspicions')).toContain('n2 declared dead n3 (+2 confirmations)');
    expect(await page.evaluate('window.__sameDocument')).toBe(true);

    server.elect('n2', 'lowest-alive');
    await expect.poll(() => text(page, '#leader'), WITHIN).toBe('n2 · epoch 1');
    expect(await page.locator('#timeline li').first().getAttribute('data-kind')).toBe('leader');
    expect(opened.errors).toEqual([]);
  });

  it('shows the stream down while it is, and catches up on what it missed once it is back', async () => {
    const server = await fixture();
    cluster(server, FIVE);
    const { page } = await open(server);
    await ready(page, server, 5);

    server.refuseStreams = true;
    server.dropStreams();
    await expect.poll(() => page.locator('#conn').getAttribute('data-state'), WITHIN).toBe('reconnecting');
    // Sent to no stream: only a snapshot can bring it.
    server.transition('n4', 'suspect', { accuser: 'n5' });
    server.refuseStreams = false;
    await expect.poll(() => page.locator('#conn').getAttribute('data-state'), { timeout: 3000 }).toBe('live');
    await expect
      .poll(async () => (await rows(page)).find((r) => r.name === 'n4')?.state, WITHIN)
      .toBe('suspect');
    expect(await text(page, '#suspicions')).toContain('n5 suspects n4');
  });

  it('stays usable at 1,000 members: counts, search, a state filter and a virtualized table', async () => {
    const server = await fixture();
    const names = Array.from({ length: 1000 }, (_, i) => `node-${String(i + 1).padStart(4, '0')}`);
    cluster(server, names);
    for (const [i, name] of names.entries()) {
      if (i % 23 === 5) server.add(name, { state: 'suspect', accuser: names[i + 1]!, confirmations: i % 3 });
      else if (i % 37 === 7) server.add(name, { state: 'dead', accuser: names[i - 1]! });
      else if (i % 97 === 11) server.add(name, { state: 'left' });
    }
    const expected = (state: MemberStateName): number =>
      [...server.members.values()].filter((m) => m.state === state).length;
    expect(expected('suspect')).toBeGreaterThan(10);

    const opened = await open(server);
    const { page } = opened;
    await expect.poll(() => text(page, '#count-total'), { timeout: 3000 }).toBe('1000');
    for (const state of ['alive', 'suspect', 'dead', 'left'] as const) {
      expect(await text(page, `#count-${state}`)).toBe(String(expected(state)));
    }
    const first = await rows(page);
    expect(first.length).toBeGreaterThan(10);
    expect(first.length).toBeLessThan(100);
    expect(first[0]!.name).toBe('node-0001');

    await page.evaluate(
      `(() => { const box = document.getElementById('table-scroll'); box.scrollTop = box.scrollHeight; })()`,
    );
    await expect.poll(async () => (await rows(page)).at(-1)?.name, WITHIN).toBe('node-1000');

    await page.fill('#search', 'node-0421');
    await expect.poll(async () => (await rows(page)).map((r) => r.name), WITHIN).toEqual(['node-0421']);
    expect(await page.locator('#shown').getAttribute('data-count')).toBe('1');

    await page.fill('#search', '');
    await page.selectOption('#state-filter', 'suspect');
    await expect
      .poll(() => page.locator('#shown').getAttribute('data-count'), WITHIN)
      .toBe(String(expected('suspect')));
    // The table holds a window of the rows: scroll it through to see them all.
    const seen = new Map<string, MemberStateName>();
    for (let screen = 0; screen < 10; screen++) {
      for (const row of await rows(page)) seen.set(row.name, row.state);
      const moved = await page.evaluate<boolean>(SCROLL_ONE_SCREEN);
      if (!moved) break;
    }
    const suspects = [...server.members.values()].filter((m) => m.state === 'suspect').map((m) => m.name);
    expect([...seen.keys()].sort()).toEqual(suspects.sort());
    expect(new Set(seen.values())).toEqual(new Set(['suspect']));

    await page.locator('.chip[data-filter="dead"]').click();
    await expect
      .poll(() => page.locator('#shown').getAttribute('data-count'), WITHIN)
      .toBe(String(expected('dead')));
    expect(await page.locator('#state-filter').inputValue()).toBe('dead');
    expect(opened.errors).toEqual([]);
  });

  it('requests nothing from any host but the one that served it', async () => {
    const server = await fixture();
    cluster(server, FIVE);
    server.leader = { leader: 'n1', epoch: 3, isLeader: true };
    const opened = await open(server);
    const { page } = opened;
    await ready(page, server, 5);
    server.transition('n5', 'suspect', { accuser: 'n1' });
    await page.locator('#grid').hover({ position: { x: 5, y: 5 } });
    await page.locator('th[data-sort="state"]').click();
    await page.fill('#search', 'n');
    await expect.poll(() => text(page, '#grid-tip'), WITHIN).toBe('n1 · alive · 10.0.0.1:7946');
    await expect.poll(() => text(page, '#leader'), WITHIN).toBe('n1 (this member) · epoch 3');

    expectOnlyOrigin(opened, server);
    const paths = new Set(server.requests.map((r) => new URL(r.url, server.origin).pathname));
    expect([...paths].sort()).toEqual([
      '/',
      '/v1/events',
      '/v1/health',
      '/v1/leader',
      '/v1/members',
      '/v1/self',
    ]);
  });

  it('sends the token it was opened with, and the fixture answers 401 to a request without it', async () => {
    const server = await fixture({ token: 's3cr=t' });
    cluster(server, FIVE);
    const opened = await open(server, `/?token=${encodeURIComponent('s3cr=t')}`);
    const { page } = opened;
    await ready(page, server, 5);
    expect(server.requests.filter((r) => r.status === 401)).toEqual([]);
    expect(server.requests.filter((r) => r.url.startsWith('/v1/members')).length).toBeGreaterThan(0);
    expect(server.requests.find((r) => r.url.startsWith('/v1/events'))?.url).toBe(
      '/v1/events?token=s3cr%3Dt',
    );
    expectOnlyOrigin(opened, server);

    for (const path of ['/', '/v1/members', '/v1/self', '/v1/health', '/v1/leader', '/v1/events']) {
      // `/` included: the page needs the token in its query, or a header.
      expect((await fetch(server.origin + path)).status, path).toBe(401);
    }
    const wrong = { headers: { authorization: 'Bearer nope' } };
    expect((await fetch(`${server.origin}/v1/members`, wrong)).status).toBe(401);
    // The query is for what cannot send a header; the JSON endpoints take only the header.
    expect((await fetch(`${server.origin}/v1/members?token=s3cr%3Dt`)).status).toBe(401);

    // A rotated token: the page says so rather than showing a stale cluster as current.
    server.token = 'rotated';
    await expect.poll(() => page.locator('#conn').getAttribute('data-state'), WITHIN).toBe('unauthorized');
    expect(await text(page, '#conn')).toBe('unauthorized: open the page as /?token=…');
  });
});
