/**
 * The status page of five real `fdkit agent --http` processes, in Debian's chromium: five alive rows,
 * then, after a SIGKILL of one agent, its row dead within 2 s, in the same document (no reload), with
 * the death on the timeline; and no request anywhere but the agent that served the page. The 2 s is the
 * issue's bound: the death watch makes the death known in well under a second on a live host.
 */
import { performance } from 'node:perf_hooks';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium.js';
import { type AgentProcess, killAll, startCluster, waitUntil } from './agent-process.js';

const NAMES = ['p0', 'p1', 'p2', 'p3', 'p4'];
const KILLED = 'p4';

let agents: AgentProcess[] = [];
let browser: Browser;
let page: Page;
let origin = '';
const requests: string[] = [];
const errors: string[] = [];

function urlOf(agent: AgentProcess): string | undefined {
  for (const line of agent.stderrLines) {
    const parsed = JSON.parse(line) as { msg?: string; url?: string };
    if (parsed.msg === 'http api listening') return parsed.url;
  }
  return undefined;
}

function stateOf(name: string): Promise<unknown> {
  // Read from Node: a predicate evaluated inside the page is an eval, which the page's policy refuses.
  return page.evaluate(`document.querySelector('#rows tr[data-name="${name}"]')?.dataset.state`);
}

beforeAll(async () => {
  agents = await startCluster(NAMES, { args: ['--http', '127.0.0.1:0'] });
  await waitUntil(() => urlOf(agents[0]!) !== undefined, 5_000);
  origin = urlOf(agents[0]!) ?? '';
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.setDefaultTimeout(5_000);
  page.on('request', (request) => requests.push(request.url()));
  page.on('pageerror', (error) => errors.push(error.message));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await killAll(agents);
});

describe('the status page of five agents', () => {
  it('shows five alive rows, then the killed agent dead within 2 s, without a reload', async () => {
    await page.goto(`${origin}/`);
    await expect.poll(() => page.locator('#count-total').textContent(), { timeout: 5_000 }).toBe('5');
    await expect
      .poll(() => page.locator('#conn').getAttribute('data-state'), { timeout: 5_000 })
      .toBe('live');
    const rows = await page.evaluate<{ name: string; state: string }[]>(
      `[...document.querySelectorAll('#rows tr.m')].map((tr) => ({ name: tr.dataset.name, state: tr.dataset.state }))`,
    );
    expect(rows.map((r) => r.name).sort()).toEqual(NAMES);
    expect(rows.every((r) => r.state === 'alive')).toBe(true);
    await page.evaluate('window.__sameDocument = true');

    agents.find((a) => a.name === KILLED)!.signal('SIGKILL');
    const killedAt = performance.now();
    await expect.poll(() => stateOf(KILLED), { timeout: 2_000, interval: 25 }).toBe('dead');
    const shownMs = performance.now() - killedAt;
    console.log(`status page: ${KILLED} shown dead ${Math.round(shownMs)} ms after its SIGKILL`);
    expect(await page.evaluate('window.__sameDocument')).toBe(true);
    expect(await page.locator('#count-dead').textContent()).toBe('1');
    expect(await page.locator('#count-alive').textContent()).toBe('4');
    await expect
      .poll(() => page.locator(`#timeline li[data-member="${KILLED}"][data-type="dead"]`).count(), {
        timeout: 2_000,
      })
      .toBeGreaterThan(0);
    expect(requests.filter((url) => !url.startsWith(`${origin}/`))).toEqual([]);
    expect(errors).toEqual([]);
  }, 30_000);
});
