/**
 * The screenshots of the lease lesson's page for docs/lease-lesson.md: the page served in this process
 * (as `fdkit demo lease --http` serves it), shot at 1280 × 800 in Debian's chromium, once in the
 * double-charge state (a 2000 ms pause against a 1000 ms term, fencing off: docs/lease-lesson.png) and
 * once with fencing on (docs/lease-lesson-fenced.png).
 *
 * Usage: `npx tsx bench/screenshots/lease-lesson.ts`. Needs /usr/bin/chromium; downloads nothing.
 */
import { fileURLToPath } from 'node:url';
import { startLessonServer } from '../../src/http/lesson/lesson-server.js';
import { launchChromium } from '../../test/support/chromium.js';

const DOCS = fileURLToPath(new URL('../../docs/', import.meta.url));
const SHOTS = [
  { file: 'lease-lesson.png', pause: 2000, term: 1000, fencing: false },
  { file: 'lease-lesson-fenced.png', pause: 2000, term: 1000, fencing: true },
] as const;

const server = await startLessonServer('127.0.0.1', 0);
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(server.url);
  for (const shot of SHOTS) {
    await page.fill('#pause-ms', String(shot.pause));
    await page.fill('#term-ms', String(shot.term));
    await page.setChecked('#fencing', shot.fencing);
    const shown = `pause=${shot.pause}&term=${shot.term}&fencing=${shot.fencing ? 1 : 0}`;
    await page.waitForSelector(`body[data-shown="${shown}"]`, { state: 'attached', timeout: 10_000 });
    // Neither field keeps the focus ring or the caret in the picture.
    await page.locator('body').click({ position: { x: 2, y: 2 } });
    await page.screenshot({ path: `${DOCS}${shot.file}` });
    process.stderr.write(`wrote docs/${shot.file}\n`);
  }
} finally {
  await browser.close();
  await server.close();
}
