import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, PROVIDE_CHROMIUM_TIMEOUT, provideChromium } from '../helpers/processes/chromium.js';
import { createEvent } from '../helpers/fixtures.js';
import { API, type Harness, startHarness } from '../helpers/harness.js';

// GraphiQL and Swagger UI as a person sees them: the app on a real port, Debian's Chromium driven by
// playwright-core, no network beyond this server (both UIs ship their assets), screenshots kept in
// test/artifacts/ for a human to look at.

const ARTIFACTS = new URL('../artifacts/', import.meta.url).pathname;
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];

let h: Harness;
let server: Server;
let origin: string;
let browser: BrowserContext;
let profile: string;
const requests: string[] = [];
let eventId: number;

// Installs Chromium first when it is missing (test/helpers/processes/chromium.ts); never skips the test.
beforeAll(provideChromium, PROVIDE_CHROMIUM_TIMEOUT);

beforeAll(async () => {
  h = await startHarness();
  eventId = (await createEvent(h.db, { title: 'Lantern Parade' })).id;
  server = h.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  mkdirSync(ARTIFACTS, { recursive: true });
  // A fresh profile each run (playwright takes it as launchPersistentContext's first argument).
  profile = mkdtempSync(join(tmpdir(), 'calendar-chromium-'));
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: { width: 1280, height: 800 },
  });
  // Generous: the whole suite runs in parallel on two cores, and GraphiQL is a 9 MB page.
  browser.setDefaultTimeout(45_000);
  browser.on('request', (request) => requests.push(request.url()));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (server) await new Promise((resolve) => server.close(resolve));
  await h?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

/** Every request the pages made went to this server (or stayed inside the page). */
function expectNoExternalRequest() {
  expect(requests.length).toBeGreaterThan(0);
  const external = requests.filter(
    (url) => !url.startsWith(`${origin}/`) && !url.startsWith(`blob:${origin}/`) && !url.startsWith('data:'),
  );
  expect(external).toEqual([]);
}

describe('GraphiQL at /graphql', () => {
  it('runs a query typed into the editor and shows the result', async () => {
    const page = await browser.newPage();
    requests.length = 0;
    await page.goto(`${origin}/graphql`);
    const editor = page.locator('.graphiql-query-editor .monaco-editor').first();
    await editor.waitFor({ state: 'visible', timeout: 45_000 });
    await editor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    // One line, inserted as a paste would be: Monaco then neither auto-closes braces nor re-indents.
    await page.keyboard.insertText(`query BrowserCheck { event(id: ${eventId}) { id: databaseId title } }`);
    // Monaco renders spaces as no-break spaces.
    const shown = async (selector: string) => (await page.locator(selector).innerText()).replace(/\s+/g, ' ');
    expect(await shown('.graphiql-query-editor .view-lines')).toBe(
      `query BrowserCheck { event(id: ${eventId}) { id: databaseId title } }`,
    );
    await page.locator('.graphiql-execute-button').click();

    await expect
      .poll(() => shown('.graphiql-response'), { timeout: 45_000 })
      .toContain('"title": "Lantern Parade"');
    const text = await shown('.graphiql-response');
    expect(text).toContain(`"id": ${eventId}`);
    expect(text).not.toContain('"errors"');

    const screenshot = join(ARTIFACTS, 'graphiql.png');
    await page.screenshot({ path: screenshot });
    expect(statSync(screenshot).size).toBeGreaterThan(10_000);
    expectNoExternalRequest();
    expect(requests.some((url) => url === `${origin}/graphql`)).toBe(true);
    await page.close();
  }, 120_000);
});

describe('Swagger UI at /calendar/events/v1/docs', () => {
  it('renders the OpenAPI document from local assets', async () => {
    const page = await browser.newPage();
    requests.length = 0;
    await page.goto(`${origin}${API}/docs`);
    const operation = page.locator('.opblock-summary-path', { hasText: '/events/{id}' }).first();
    await operation.waitFor({ state: 'visible', timeout: 45_000 });
    expect(await page.locator('.opblock').count()).toBeGreaterThan(2);
    expect(await page.locator('.info .title').innerText()).toContain('Calendar REST API');

    const screenshot = join(ARTIFACTS, 'swagger-ui.png');
    await page.screenshot({ path: screenshot, fullPage: true });
    expect(statSync(screenshot).size).toBeGreaterThan(10_000);
    expectNoExternalRequest();
    expect(requests).toContain(`${origin}${API}/doc`);
    await page.close();
  }, 120_000);
});
