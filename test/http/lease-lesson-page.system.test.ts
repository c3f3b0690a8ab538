/**
 * The lease lesson's page in a real browser (Debian's chromium, driven by playwright-core): with a pause
 * of 2000 ms against a 1000 ms term and fencing off, the page shows a double charge; with fencing on, one
 * charge and A's stale write refused; with a pause inside the term, one charge even without fencing.
 * Every request the page makes goes to the lesson's own server.
 *
 * The page computes nothing: the server runs the lesson. So these tests check that the page asks for
 * what its inputs say, shows the newest answer, and tells the outcomes apart; the outcomes themselves
 * are test/fencing/lease-lesson.test.ts's.
 */
// tier: system (launches a chromium process through playwright-core)
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LessonServer, startLessonServer } from '../../src/http/lesson/lesson-server.js';
import { launchChromium } from '../support/chromium.js';

let server: LessonServer;
let browser: Browser;
let page: Page;
const requests: string[] = [];
const problems: string[] = [];

beforeAll(async () => {
  server = await startLessonServer('127.0.0.1', 0);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on('request', (request) => requests.push(request.url()));
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  await page.goto(server.url);
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** Sets the inputs as a person would, and waits until the page shows the answer to exactly them. */
async function set(pause: number, term: number, fencing: boolean): Promise<void> {
  await page.fill('#pause-ms', String(pause));
  await page.fill('#term-ms', String(term));
  await page.setChecked('#fencing', fencing);
  const shown = `pause=${pause}&term=${term}&fencing=${fencing ? 1 : 0}`;
  await shows(shown);
}

/** Waits until the page shows the answer to `query` (the page sets `data-shown` once it has drawn it). */
async function shows(query: string): Promise<void> {
  await page.waitForSelector(`body[data-shown="${query}"]`, { state: 'attached', timeout: 5000 });
}

const texts = (selector: string) => page.locator(selector).allTextContents();

describe('the lease lesson page', () => {
  it('shows a double charge on load: a 2000 ms pause against a 1000 ms term, fencing off', async () => {
    await page.waitForSelector('body[data-shown]', { state: 'attached', timeout: 5000 });
    expect(await page.inputValue('#pause-ms')).toBe('2000');
    expect(await page.inputValue('#term-ms')).toBe('1000');
    expect(await page.isChecked('#fencing')).toBe(false);
    expect(await page.textContent('#verdict')).toMatch(/charged twice/i);
  });

  it('with fencing off, two charges, nothing refused, both writes drawn as accepted', async () => {
    await set(2000, 1000, false);
    expect(await page.textContent('#verdict')).toMatch(/charged twice/i);
    expect(await texts('#charges li')).toEqual([
      "B's charge at 1030 ms, token 2",
      "A's charge at 2000 ms, token 1",
    ]);
    expect(await page.locator('#steps li[data-outcome=refused]').count()).toBe(0);
    expect(await page.locator('#timeline circle[data-outcome=accepted]').count()).toBe(2);
    expect(await page.locator('#timeline [data-outcome=refused]').count()).toBe(0);
    expect(await page.locator('#timeline text', { hasText: 'GC pause 2000 ms' }).count()).toBe(1);
  });

  it('with fencing on, one charge and A stale write refused, in the list and on the timeline', async () => {
    await set(2000, 1000, true);
    expect(await page.textContent('#verdict')).toMatch(/stale write refused/i);
    expect(await page.textContent('#verdict')).not.toMatch(/twice/i);
    expect(await texts('#charges li')).toEqual(["B's charge at 1030 ms, token 2"]);
    const refused = await texts('#steps li[data-outcome=refused]');
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatch(/^2000 msstorageA's charge \(token 1\): refused$/);
    expect(await page.locator('#timeline circle[data-outcome=refused]').count()).toBe(1);
    expect(await page.locator('#timeline circle[data-outcome=accepted]').count()).toBe(1);
  });

  it('with a pause inside the term, one charge even without fencing', async () => {
    await set(500, 1000, false);
    expect(await page.textContent('#verdict')).toMatch(/^charged once$/i);
    expect(await texts('#charges li')).toEqual(["A's charge at 500 ms, token 1"]);
    expect(await page.locator('#steps li[data-outcome=refused]').count()).toBe(0);
    // B got the lease when A released it, and read the charge: no write of its own.
    expect(await texts('#steps li')).toContain('510 msBreads: already charged (token 2)');
  });

  it('turns double at term + 11 ms and not at term + 10 ms, with the slider too', async () => {
    await set(1010, 1000, false);
    expect(await page.textContent('#verdict')).toMatch(/^charged once$/i);
    // Lucky, not safe: A wrote with an expired lease, just before B looked.
    expect(await page.textContent('#why')).toMatch(/wrote at 1010 ms, before B read at 1010 ms/);
    await set(1011, 1000, false);
    expect(await page.textContent('#verdict')).toMatch(/charged twice/i);
    // The slider drives the number field and the run.
    await page.locator('#pause-range').fill('300');
    expect(await page.inputValue('#pause-ms')).toBe('300');
    await shows('pause=300&term=1000&fencing=0');
    expect(await texts('#charges li')).toEqual(["A's charge at 300 ms, token 1"]);
  });

  it("shows the server's refusal of a term below its bound, and recovers", async () => {
    await set(2000, 50, false);
    expect(await page.isVisible('#error')).toBe(true);
    expect(await page.textContent('#error')).toMatch(/term .*got '50'/);
    await set(2000, 1000, false);
    expect(await page.isVisible('#error')).toBe(false);
    expect(await page.textContent('#verdict')).toMatch(/charged twice/i);
  });

  it("made requests only to the server's origin, and no script error", () => {
    const origin = new URL(server.url).origin;
    expect(requests.length).toBeGreaterThan(5);
    expect(requests.filter((url) => new URL(url).origin !== origin)).toEqual([]);
    expect(requests.filter((url) => !url.startsWith(`${origin}/lesson/run?`))).toEqual([`${origin}/`]);
    // The 400 above logs a failed fetch to the console; nothing else may.
    expect(problems.filter((p) => !/status of 400/.test(p))).toEqual([]);
  });
});
