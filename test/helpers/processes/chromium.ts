import { execFile } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';

// The browser test drives Debian's Chromium (playwright-core downloads no browser). So that `npm test`
// passes on a fresh machine, the test installs the package when it is missing and it may (as root).
export const CHROMIUM = '/usr/bin/chromium';
/** apt-get on a fresh machine: the package lists, then Chromium and its libraries. */
export const PROVIDE_CHROMIUM_TIMEOUT = 10 * 60_000;

const run = promisify(execFile);

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export async function provideChromium(): Promise<void> {
  if (executable(CHROMIUM)) return;
  if (process.getuid?.() !== 0 || !executable('/usr/bin/apt-get')) {
    throw new Error(
      `The browser test needs ${CHROMIUM}, which is missing, and this process cannot install it (that takes ` +
        "root and apt-get): install Debian's package (`sudo apt-get install chromium`), then run the tests again.",
    );
  }
  console.log(`${CHROMIUM} is missing: installing Debian's chromium with apt-get`);
  const options = { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, maxBuffer: 64 * 1024 * 1024 };
  try {
    await run('apt-get', ['update', '-qq'], options);
    await run('apt-get', ['install', '-y', '-qq', 'chromium'], options);
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(`Installing chromium with apt-get failed: ${(error as Error).message}\n${stderr}`);
  }
  if (!executable(CHROMIUM)) throw new Error(`apt-get installed chromium, but ${CHROMIUM} is still missing`);
}

/** axe-core's serious and critical violations in the page (its shadow roots included), `id (nodes)` each. */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated by the driver: the page's own Content-Security-Policy refuses injected scripts.
  await page.evaluate(readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8'));
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: (
            context: unknown,
          ) => Promise<{ violations: Array<{ id: string; impact: string; nodes: unknown[] }> }>;
        };
      }
    ).axe;
    const { violations } = await axe.run(document);
    return violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map((violation) => `${violation.id} (${violation.nodes.length})`);
  });
}
