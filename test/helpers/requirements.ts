/**
 * What a test file needs from the machine: Debian's Chromium, the built dashboard, a
 * PostgreSQL that can make a streaming replica, HAProxy and wrk. Outside CI a file whose need
 * is missing skips and prints why; under CI (`CI` set, as .ci/run sets it) it fails: a browser
 * or service missing there must not pass as green.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { WEB_ROOT } from '../../src/modules/dashboard/files.js';

/** Debian's Chromium (never a downloaded browser; .ci/run installs it), or CHROMIUM_PATH. */
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** Headless Debian Chromium with nothing of its own on the network; `extraArgs` after (`--host-resolver-rules=…`). */
export function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...extraArgs,
    ],
  });
}

/** `CI` set to anything but '', 'false' or '0'. */
export const underCI = !['', 'false', '0'].includes(process.env.CI ?? '');

export const chromiumMissing = (): string | undefined =>
  existsSync(CHROMIUM) ? undefined : `Chromium is not at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`;

export const dashboardMissing = (): string | undefined =>
  existsSync(`${WEB_ROOT}/index.html`) ? undefined : `the dashboard is not built (no ${WEB_ROOT}/index.html: npm run build)`;

/**
 * Whether `what` can run: true when no reason is given; otherwise false with the reasons
 * printed (the caller skips), or under CI an error naming them (the file fails).
 */
export function available(what: string, ...missing: (string | undefined)[]): boolean {
  const reasons = missing.filter((m): m is string => m !== undefined);
  if (reasons.length === 0) return true;
  const message = `${what}: ${reasons.join('; ')}`;
  if (underCI) throw new Error(`${message} (required under CI)`);
  console.warn(`skipped: ${message}`);
  return false;
}

/** Chromium is there (under CI it must be). */
export const chromiumAvailable = (what: string): boolean => available(what, chromiumMissing());

/** Chromium and the built dashboard are there (under CI they must be). */
export const dashboardAvailable = (what: string): boolean => available(what, chromiumMissing(), dashboardMissing());
