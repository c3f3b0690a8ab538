/**
 * Debian's chromium through playwright-core, for the browser tests and the screenshot scripts: the
 * system binary (nothing is downloaded: CI reaches only the npm registry and Debian), without the
 * sandbox (CI runs as root) and without the background services that would reach out to the network.
 */
import { type Browser, chromium } from 'playwright-core';

/** Where Debian's chromium package puts the browser; .ci/run installs it. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Starts a headless chromium; close it with `browser.close()`. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: ARGS });
}
