/**
 * The screenshot of the status page in docs/: a plausible twelve-member cluster on the test fixture
 * (test/http/status-fixture.ts), one member suspected and one declared dead, with their transitions on
 * the timeline, taken by Debian's Chromium at 1280×800.
 *
 * Usage: `npx tsx bench/screenshots/status-page.ts [out.png]`; writes docs/status-page.png by default.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { StatusFixture } from '../../test/http/status-fixture.js';
import { launchChromium } from '../../test/support/chromium.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const OUT = process.argv[2] ?? join(ROOT, 'docs', 'status-page.png');

// Events are stamped from this clock, set back before each one so the timeline reads like a real minute.
const start = Date.now();
let wall = start;
const server = await StatusFixture.start({ now: () => wall });

const NAMES = [
  'api-1',
  'api-2',
  'api-3',
  'worker-1',
  'worker-2',
  'worker-3',
  'worker-4',
  'worker-5',
  'db-1',
  'db-2',
  'cache-1',
  'cache-2',
];
for (const [i, name] of NAMES.entries()) {
  wall = start - (40 + 7 * i) * 60_000;
  server.add(name, {
    address: `10.4.0.${11 + i}:7946`,
    incarnation: 1 + (i % 3),
    rttMs: i === 0 ? null : 0.6 + ((i * 37) % 19) / 10,
    phi: i === 0 ? 0 : 0.2 + ((i * 13) % 9) / 10,
    local: i === 0,
    meta: name.startsWith('db') ? 'role=db zone=eu-west-1b' : `role=${name.split('-')[0]} zone=eu-west-1a`,
  });
}
server.self = {
  name: 'api-1',
  address: '10.4.0.11:7946',
  incarnation: 1,
  localHealth: 0,
  joined: true,
  pendingBroadcasts: 3,
  counters: {},
};
server.leader = { leader: 'api-1', epoch: 4, isLeader: true };

/**
 * Waits until `expression` is true in the page, asked from here: a predicate polled inside the page
 * (`waitForFunction`) is an eval, which the page's content security policy refuses.
 */
async function until(page: Page, expression: string): Promise<void> {
  for (let tries = 0; tries < 100; tries++) {
    if (await page.evaluate(expression)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the page never had ${expression}`);
}

const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(server.origin);
  await until(page, `document.getElementById('conn').dataset.state === 'live'`);

  const at = (secondsAgo: number): void => {
    wall = Date.now() - secondsAgo * 1000;
  };
  at(52);
  server.transition('worker-2', 'suspect', { accuser: 'api-3', cause: 'probe-failed' });
  at(49);
  server.transition('worker-2', 'alive', { incarnation: 3, cause: 'refuted' });
  at(41);
  server.transition('cache-2', 'suspect', { accuser: 'db-1', cause: 'probe-failed' });
  at(36);
  server.transition('cache-2', 'suspect', { accuser: 'db-1', confirmations: 2, cause: 'confirmed' });
  at(31);
  server.transition('cache-2', 'dead', { accuser: 'db-1', confirmations: 2, cause: 'suspicion-timeout' });
  at(4);
  server.transition('worker-4', 'suspect', { accuser: 'api-2', confirmations: 1, cause: 'probe-failed' });
  const suspect = server.members.get('worker-4')!;
  server.members.set('worker-4', { ...suspect, rttMs: null, phi: 6.3 });
  const dead = server.members.get('cache-2')!;
  server.members.set('cache-2', { ...dead, rttMs: null, phi: 14.8 });

  await until(page, `document.querySelectorAll('#timeline li').length === 6`);
  // One poll after the last change, so the table shows the phi and RTT set above.
  await until(
    page,
    `document.querySelector('#rows tr[data-name="worker-4"] td:nth-child(8)')?.textContent === '6.3'`,
  );
  await page.screenshot({ path: OUT });
  process.stdout.write(`wrote ${OUT}\n`);
} finally {
  await browser.close();
  await server.close();
}
