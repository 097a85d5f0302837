import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's chromium (`apt-get install -y chromium`); playwright cannot download browsers here. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Whether the browser tests run. In CI (`CI` set) a missing browser is a failure, never a silent
 * skip: the test file throws. On a developer's machine without it they are skipped, saying so.
 */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  if (process.env.CI) {
    throw new Error(
      `CI: the browser tests need chromium at ${CHROMIUM_PATH} (apt-get install -y chromium)`,
    );
  }
  console.warn(
    `Skipping the browser tests: no chromium at ${CHROMIUM_PATH} (apt-get install -y chromium, or set CHROMIUM_PATH)`,
  );
  return false;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
