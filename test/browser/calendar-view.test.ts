import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import pixelmatch from 'pixelmatch';
import { type BrowserContext, type Page, chromium } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CalendarEventsDocument } from '../../examples/generated/calendar-view/graphql.js';
import { seedDatabase } from '../../scripts/sample-data/seed.js';
import {
  CHROMIUM,
  PROVIDE_CHROMIUM_TIMEOUT,
  provideChromium,
  seriousViolations,
} from '../helpers/processes/chromium.js';
import { createEvent, createOrganizer, createVenue } from '../helpers/fixtures.js';
import { API, type Harness, startHarness } from '../helpers/harness.js';
import { createUser } from '../helpers/users.js';

// <calendar-view> (web/calendar/) as a visitor uses it: the service's /calendar page on a real port,
// Debian's Chromium driven by playwright-core, on seeded sample data, on a fresh server configured by
// default (its site zone aside): it knows the component's documents from the start, so the page sends
// ids alone and nothing fails. Every step fails on a console error, an uncaught exception, a failed
// request or an answer of 400 or more. One browser, one page, walked through in order: the month
// across New York's spring DST change, the keyboard, an event's details, accessibility, screenshots,
// a live change, the list's paging and a category filter.
//
// Screenshots are compared with test/screenshots/*.png within a tolerance; after a deliberate change
// of the look, regenerate them (and the README's docs/images/calendar.png) with
//   UPDATE_SCREENSHOTS=1 npx vitest run test/browser/calendar-view.test.ts

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCREENSHOTS = join(ROOT, 'test/screenshots');
const README_IMAGE = join(ROOT, 'docs/images/calendar.png');
const UPDATE = process.env.UPDATE_SCREENSHOTS === '1';
const SITE_ZONE = 'America/New_York';
const VIEWER_ZONE = 'Europe/Paris';
// The browser's clock: Tuesday 10 March 2026, 11:00 in New York, two days after the clocks went forward.
const NOW = new Date('2026-03-10T15:00:00Z');
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
  '--font-render-hinting=none',
];

let h: Harness;
let server: Server;
let origin: string;
let browser: BrowserContext;
let page: Page;
let profile: string;
const requests: string[] = [];
/** What went wrong in the page since the last step: console errors, exceptions, failed requests. */
const problems: string[] = [];
/** Event streams the page closed itself (cancelling their request) since the last step. */
const closedStreams: string[] = [];
const fixtures: Record<string, number> = {};
/** Where a click selects a day rather than one of its events. */
const DAY_NUMBER = { position: { x: 6, y: 6 } };

beforeAll(provideChromium, PROVIDE_CHROMIUM_TIMEOUT);

beforeAll(async () => {
  // The default configuration: no CALENDAR_TRUSTED_DOCUMENTS, the response cache on (the harness turns
  // it off for fixtures written past the write pipeline: these are all written before the first read).
  h = await startHarness({ CALENDAR_TIMEZONE: SITE_ZONE, CALENDAR_CACHE: 'on' });
  // The demo's sample data, reproducible: the same rows (and ids) on SQLite and PostgreSQL.
  await seedDatabase(h.db, h.config.databaseProvider, {
    seed: 27,
    now: new Date('2026-02-15T00:00:00Z'),
    events: 220,
    venues: 8,
    organizers: 8,
    reset: false,
  });
  // Around the DST change (Sunday 8 March 2026, 02:00 → 03:00 in New York): a fixed offset would put
  // these a day off.
  const venue = await createVenue(h.db, {
    name: 'Harbour Hall',
    address: '12 Pier Road',
    city: 'Brooklyn',
    state: 'NY',
    stateprovince: 'NY',
    zip: '11201',
    geoLat: 40.7,
    geoLng: -74,
    showMapLink: true,
  });
  const organizer = await createOrganizer(h.db, { name: 'Tidewater Arts', email: 'hello@tidewater.example' });
  const event = async (title: string, start: string, timezone: string, fields = {}) =>
    (fixtures[title] = (
      await createEvent(h.db, {
        title,
        start,
        timezone,
        venueIds: [venue.id],
        organizerIds: [organizer.id],
        fields: { publishedAt: new Date('2026-01-01T00:00:00Z'), ...fields },
      })
    ).id);
  await event('Late set before the change', '2026-03-07 23:30:00', SITE_ZONE);
  await event('Night of the change', '2026-03-08 23:30:00', SITE_ZONE, {
    attendanceMode: 'mixed',
    onlineUrl: 'https://stream.example/night',
    cost: '15',
    currencySymbol: '$',
    currencyPosition: 'prefix',
  });
  await event('First light after', '2026-03-09 00:30:00', SITE_ZONE);
  // 10:00 in Tokyo is 21:00 the day before in New York.
  await event('Tokyo morning', '2026-03-09 10:00:00', 'Asia/Tokyo');
  await event('Harbour concert', '2026-03-13 20:00:00', SITE_ZONE, {
    eventStatus: 'canceled',
    eventStatusReason: 'The hall is flooded.',
  });

  server = h.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  profile = mkdtempSync(join(tmpdir(), 'calendar-chromium-'));
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: { width: 1280, height: 900 },
    locale: 'en-US',
    timezoneId: VIEWER_ZONE,
  });
  browser.setDefaultTimeout(20_000);
  browser.on('request', (request) => requests.push(request.url()));
  page = browser.pages()[0] ?? (await browser.newPage());
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`exception: ${error.message}`));
  page.on('requestfailed', (request) => {
    const error = request.failure()?.errorText;
    // A subscription ends by cancelling its request (the filter changed): the page's own doing.
    if (error === 'net::ERR_ABORTED' && request.headers().accept === 'text/event-stream')
      closedStreams.push(request.url());
    else problems.push(`failed: ${request.url()} (${error})`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`${response.status()}: ${response.url()}`);
  });
  await page.clock.setFixedTime(NOW);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  if (server) await new Promise((resolve) => server.close(resolve));
  await h?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

async function settled(): Promise<void> {
  await page.waitForFunction(
    () => document.querySelector('calendar-view')?.shadowRoot?.querySelector('[aria-busy="false"]') != null,
  );
}

/** What has keyboard focus inside the component. */
function focused() {
  return page.evaluate(() => {
    const element = document.querySelector('calendar-view')!.shadowRoot!.activeElement as HTMLElement | null;
    return {
      date: element?.dataset.date,
      eventId: element?.dataset.eventId,
      role: element?.getAttribute('role'),
    };
  });
}

/** The events the service lists for a filter, read through the same trusted document. */
async function apiEvents(variables: Record<string, unknown>): Promise<number[]> {
  const response = await h.http
    .get('/graphql')
    .query({ documentId: CalendarEventsDocument.__meta__!.hash, variables: JSON.stringify(variables) });
  expect(response.status).toBe(200);
  const body = response.body as {
    data: { eventsConnection: { edges: Array<{ node: { databaseId: number } }> } };
  };
  return body.data.eventsConnection.edges.map((edge) => edge.node.databaseId);
}

/** Published, listed events by the day they start on in New York (the site's zone), for March 2026. */
async function marchByDay(): Promise<Map<string, number[]>> {
  const events = await h.db.event.findMany({
    where: { status: 'publish', hideFromListings: false, password: null },
    select: { id: true, startsAt: true, endsAt: true, allDay: true, localStart: true, localEnd: true },
  });
  const dayIn = (instant: Date) => instant.toLocaleDateString('en-CA', { timeZone: SITE_ZONE });
  const byDay = new Map<string, number[]>();
  for (const event of events) {
    const first = event.allDay ? event.localStart.slice(0, 10) : dayIn(event.startsAt);
    const last = event.allDay ? event.localEnd.slice(0, 10) : dayIn(new Date(event.endsAt.getTime() - 1));
    for (let day = 1; day <= 31; day++) {
      const date = `2026-03-${String(day).padStart(2, '0')}`;
      if (first <= date && date <= last) byDay.set(date, [...(byDay.get(date) ?? []), event.id]);
    }
  }
  return byDay;
}

/** Compares a screenshot with its reference (or writes the reference with UPDATE_SCREENSHOTS=1). */
function compareScreenshot(name: string, actual: Buffer): void {
  const path = join(SCREENSHOTS, name);
  if (UPDATE || !existsSync(path)) {
    expect(UPDATE, `${path} is missing: run with UPDATE_SCREENSHOTS=1 to create it`).toBe(true);
    mkdirSync(SCREENSHOTS, { recursive: true });
    writeFileSync(path, actual);
    return;
  }
  const expected = PNG.sync.read(readFileSync(path));
  const image = PNG.sync.read(actual);
  expect([image.width, image.height], `${name}: size`).toEqual([expected.width, expected.height]);
  const diff = new PNG({ width: image.width, height: image.height });
  const different = pixelmatch(expected.data, image.data, diff.data, image.width, image.height, {
    threshold: 0.2,
  });
  const share = different / (image.width * image.height);
  if (share > 0.002) {
    const artifacts = join(ROOT, 'test/artifacts');
    mkdirSync(artifacts, { recursive: true });
    writeFileSync(join(artifacts, name.replace('.png', '.actual.png')), actual);
    writeFileSync(join(artifacts, name.replace('.png', '.diff.png')), PNG.sync.write(diff));
  }
  expect(share, `${name}: share of pixels that differ (see test/artifacts/)`).toBeLessThanOrEqual(0.002);
}

describe('GET /embed/calendar.js and /calendar', () => {
  it('serves the script by a content hash, cacheable, gzipped under 40 KB, and the page that uses it', async () => {
    const stable = await fetch(`${origin}/embed/calendar.js`, { headers: { 'accept-encoding': 'gzip' } });
    expect(stable.status).toBe(200);
    expect(stable.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(stable.headers.get('cache-control')).toBe('public, max-age=300, must-revalidate');
    expect(stable.headers.get('access-control-allow-origin')).toBe('*');
    const etag = stable.headers.get('etag')!;
    const hash = /^"([0-9a-f]{20})"$/.exec(etag)![1]!;
    const script = await stable.text();
    expect(script).toContain('customElements.define("calendar-view"');
    // The site's zone is written in; the placeholder is gone.
    expect(script).toContain(SITE_ZONE);
    expect(script).not.toContain('@@CALENDAR_SITE_TIMEZONE@@');

    // Node's fetch undoes the compression; the header says it was sent gzipped.
    expect(stable.headers.get('content-encoding')).toBe('gzip');
    const size = gzipSync(script, { level: 9 }).length;
    expect(size).toBeLessThan(40 * 1024);
    console.log(`calendar.js: ${script.length} bytes, ${size} gzipped`);

    expect((await fetch(`${origin}/embed/calendar.js`, { headers: { 'if-none-match': etag } })).status).toBe(
      304,
    );
    const hashed = await fetch(`${origin}/embed/calendar.${hash}.js`);
    expect(hashed.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await hashed.text()).toBe(script);
    const stale = await fetch(`${origin}/embed/calendar.${'0'.repeat(20)}.js`);
    expect([stale.status, (await stale.json()).code]).toEqual([404, 'rest_no_route']);
    const post = await fetch(`${origin}/embed/calendar.js`, { method: 'POST' });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);

    const html = await (await fetch(`${origin}/calendar`)).text();
    expect(html).toContain(`<script type="module" src="/embed/calendar.${hash}.js"></script>`);
    expect(html).toContain('<calendar-view view="month" filter-bar live></calendar-view>');
    expect(html).toContain('<a href="/calendar/events/v1/docs">REST API docs</a>');
    // Any document runs here (no CALENDAR_TRUSTED_DOCUMENTS): GraphiQL is served, and linked.
    expect(html).toContain('<a href="/graphql">GraphiQL</a>');

    // Its icon, declared (no request for /favicon.ico), at an address that changes with it.
    const icon = /<link rel="icon" href="(\/favicon\.[0-9a-f]{20}\.svg)" type="image\/svg\+xml">/.exec(
      html,
    )?.[1];
    expect(icon).toBeDefined();
    const svg = await fetch(`${origin}${icon}`);
    expect([svg.status, svg.headers.get('content-type'), svg.headers.get('cache-control')]).toEqual([
      200,
      'image/svg+xml',
      'public, max-age=31536000, immutable',
    ]);
    expect(svg.headers.get('content-security-policy')).toBe("default-src 'none'");
    expect(await svg.text()).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^]*<\/svg>$/);
    const oldIcon = await fetch(`${origin}/favicon.${'0'.repeat(20)}.svg`);
    expect([oldIcon.status, (await oldIcon.json()).code]).toEqual([404, 'rest_no_route']);
  });
});

describe('the /calendar page in Chromium', () => {
  // One step failing leaves no dialog open over the next.
  beforeEach(async () => {
    await page.evaluate(() =>
      document.querySelector('calendar-view')?.shadowRoot?.querySelector('dialog')?.close(),
    );
  });
  // Nothing went wrong in the page during the step (each step's own, so a failure names its step).
  afterEach(() => {
    expect(problems.splice(0)).toEqual([]);
    closedStreams.splice(0);
  });

  it('shows the month of today in the site zone, each event in its day across the DST change', async () => {
    const subscribed = page.waitForResponse((response) => response.url().includes('CalendarEventChanged'));
    await page.goto(`${origin}/calendar`);
    await settled();
    await subscribed;
    // One stream, opened once: none cancelled.
    expect(requests.filter((url) => url.includes('CalendarEventChanged'))).toHaveLength(1);
    expect(
      await page.evaluate(
        () => document.querySelector('calendar-view')!.shadowRoot!.querySelector('h2')!.textContent,
      ),
    ).toBe('March 2026');
    const weekdays = await page.evaluate(() =>
      [...document.querySelector('calendar-view')!.shadowRoot!.querySelectorAll('[role=columnheader]')].map(
        (cell) => cell.textContent!.trim(),
      ),
    );
    expect(weekdays).toEqual(['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat']);
    const cells = await page.evaluate(() =>
      [
        ...document
          .querySelector('calendar-view')!
          .shadowRoot!.querySelectorAll<HTMLElement>('[role=gridcell]'),
      ].map((cell) => ({
        date: cell.dataset.date!,
        label: cell.querySelector('.label')!.textContent!,
      })),
    );
    expect(cells).toHaveLength(42);
    expect([cells[0]!.date, cells[41]!.date]).toEqual(['2026-03-01', '2026-04-11']);
    const expected = await marchByDay();
    expect(expected.get('2026-03-08')).toEqual(
      expect.arrayContaining([fixtures['Night of the change'], fixtures['Tokyo morning']]),
    );
    for (const cell of cells.filter((c) => c.date.startsWith('2026-03'))) {
      const count = expected.get(cell.date)?.length ?? 0;
      expect(cell.label, cell.date).toMatch(new RegExp(`, ${count} events?$`));
    }
    // The days either side of the change, as the day's agenda lists them.
    for (const date of ['2026-03-07', '2026-03-08', '2026-03-09']) {
      await page.locator(`calendar-view [role=gridcell][data-date="${date}"]`).click(DAY_NUMBER);
      const ids = await page.evaluate(() =>
        [
          ...document
            .querySelector('calendar-view')!
            .shadowRoot!.querySelectorAll<HTMLElement>('.agenda [data-event-id]'),
        ].map((b) => Number(b.dataset.eventId)),
      );
      if (date === '2026-03-08') {
        // In the order they happen, not the API's local-start order: 21:00 New York time (Tokyo's
        // 10:00 the next morning) before 23:30 New York time.
        expect(ids.indexOf(fixtures['Tokyo morning']!)).toBeLessThan(
          ids.indexOf(fixtures['Night of the change']!),
        );
      }
      expect(ids.sort(), date).toEqual([...(expected.get(date) ?? [])].sort());
    }
    // The first day it shows on (the map's order is the rows' order, which PostgreSQL does not fix).
    const onDay = (title: string) =>
      [...expected]
        .sort(([a], [b]) => a.localeCompare(b))
        .find(([, ids]) => ids.includes(fixtures[title]!))?.[0];
    expect(onDay('Late set before the change')).toBe('2026-03-07');
    expect(onDay('First light after')).toBe('2026-03-09');
  });

  it(
    'reaches every event of the month with the keyboard alone, and opens one',
    { timeout: 90_000 },
    async () => {
      await page.locator('calendar-view [role=gridcell][data-date="2026-03-10"]').click(DAY_NUMBER);
      // From the top of the page: Tab until the grid's one tab stop has focus.
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      await page.locator('body').focus();
      for (let i = 0; i < 20 && (await focused()).role !== 'gridcell'; i++) await page.keyboard.press('Tab');
      expect(await focused()).toMatchObject({ role: 'gridcell', date: '2026-03-10' });
      await page.keyboard.press('Home');
      expect((await focused()).date).toBe('2026-03-08');
      await page.keyboard.press('ArrowUp');
      expect((await focused()).date).toBe('2026-03-01');

      const reached = new Set<number>();
      for (let day = 1; day <= 31; day++) {
        const date = `2026-03-${String(day).padStart(2, '0')}`;
        expect((await focused()).date).toBe(date);
        // Tab through the day's events (the agenda after the grid) until focus leaves them.
        for (;;) {
          await page.keyboard.press('Tab');
          const now = await focused();
          if (!now.eventId) break;
          reached.add(Number(now.eventId));
        }
        // On the page's footer link: back to the last event (or the day), Escape to the day.
        await page.keyboard.press('Shift+Tab');
        await page.keyboard.press('Escape');
        expect((await focused()).date, `back on ${date}`).toBe(date);
        if (day < 31) await page.keyboard.press('ArrowRight');
      }
      const expected = new Set([...(await marchByDay()).values()].flat());
      expect([...reached].sort()).toEqual([...expected].sort());

      // A month back and forth (the day kept within the shorter month), then Enter on the 8th and on
      // the event opens its details.
      await page.keyboard.press('PageUp');
      expect((await focused()).date).toBe('2026-02-28');
      await page.keyboard.press('PageDown');
      expect((await focused()).date).toBe('2026-03-28');
      await settled();
      for (let i = 0; i < 20; i++) await page.keyboard.press('ArrowLeft');
      expect((await focused()).date).toBe('2026-03-08');
      await page.keyboard.press('Enter');
      for (let i = 0; i < 10 && Number((await focused()).eventId) !== fixtures['Night of the change']; i++)
        await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      const dialog = page.locator('calendar-view dialog[open]');
      await dialog.locator('[data-field=when]').waitFor();
      expect(await dialog.locator('h2').innerText()).toBe('Night of the change');
      // In the event's zone (EDT since that morning) and in the viewer's (Paris, still CET).
      expect(await dialog.locator('[data-field=when]').innerText()).toMatch(
        /Sunday, March 8, 2026.*11:30\s?PM.*EDT/,
      );
      expect(await dialog.locator('[data-field=viewer-time]').innerText()).toMatch(
        /Monday, March 9, 2026.*4:30.*AM.*GMT\+1/,
      );
      expect(await dialog.locator('[data-field=venue]').innerText()).toContain('Harbour Hall');
      expect(await dialog.locator('[data-link=map]').getAttribute('href')).toBe(
        'https://www.google.com/maps/search/?api=1&query=40.7%2C-74',
      );
      expect(await dialog.locator('[data-field=organizers]').innerText()).toContain('Tidewater Arts');
      expect(await dialog.locator('[data-field=cost]').innerText()).toBe('$15');
      expect(await dialog.locator('[data-field=online] a').getAttribute('href')).toBe(
        'https://stream.example/night',
      );
      const ics = await dialog.locator('[data-link=ics]').getAttribute('href');
      expect(ics).toBe(`${origin}${API}/events/${fixtures['Night of the change']}.ics`);
      const feed = await fetch(ics!);
      expect([feed.status, feed.headers.get('content-type')?.split(';')[0]]).toEqual([200, 'text/calendar']);
      expect(await feed.text()).toContain('SUMMARY:Night of the change');
      const google = new URL((await dialog.locator('[data-link=google]').getAttribute('href'))!);
      expect(google.searchParams.get('dates')).toBe('20260309T033000Z/20260309T053000Z');
      expect(google.searchParams.get('ctz')).toBe(SITE_ZONE);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      expect(Number((await focused()).eventId)).toBe(fixtures['Night of the change']);
    },
  );

  it('shows a canceled event as canceled', async () => {
    await page.locator('calendar-view [role=gridcell][data-date="2026-03-13"]').click(DAY_NUMBER);
    const row = page.locator(`calendar-view .agenda [data-event-id="${fixtures['Harbour concert']}"]`);
    expect(await row.locator('.badge').innerText()).toBe('Canceled');
    await row.click();
    const dialog = page.locator('calendar-view dialog[open]');
    await dialog.locator('[data-field=when]').waitFor();
    expect(await dialog.locator('[data-status=canceled]').innerText()).toBe('Canceled');
    expect(await dialog.innerText()).toContain('The hall is flooded.');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  it('has no serious or critical accessibility violation (axe-core)', async () => {
    const serious = () => seriousViolations(page);
    expect(await serious()).toEqual([]);
    await page.locator(`calendar-view .agenda [data-event-id="${fixtures['Harbour concert']}"]`).click();
    await page.locator('calendar-view dialog[open] [data-field=when]').waitFor();
    expect(await serious()).toEqual([]);
    await page.keyboard.press('Escape');
  });

  it('looks as the references at 1280 and 320 pixels wide', async () => {
    await page.locator('calendar-view [role=gridcell][data-date="2026-03-10"]').click(DAY_NUMBER);
    await page.evaluate(() =>
      (document.querySelector('calendar-view')!.shadowRoot!.activeElement as HTMLElement | null)?.blur(),
    );
    await page.mouse.move(0, 0);
    const element = page.locator('calendar-view');
    const wide = await element.screenshot({ animations: 'disabled' });
    compareScreenshot('calendar-month-1280.png', wide);
    if (UPDATE) {
      mkdirSync(join(README_IMAGE, '..'), { recursive: true });
      writeFileSync(README_IMAGE, wide);
    }
    await page.setViewportSize({ width: 320, height: 900 });
    // Readable at 320 px: nothing wider than the viewport.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
    compareScreenshot('calendar-month-320.png', await element.screenshot({ animations: 'disabled' }));
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('shows an event created through the API without a reload (live)', async () => {
    await page.locator('calendar-view [role=gridcell][data-date="2026-03-12"]').click(DAY_NUMBER);
    const admin = await createUser(h, 'administrator');
    const created = await h.http.post(`${API}/events`).auth(admin.login, admin.password).send({
      title: 'Pop-up gig',
      start_date: '2026-03-12 19:00:00',
      end_date: '2026-03-12 21:00:00',
      status: 'publish',
    });
    expect(created.status).toBe(201);
    const id = (created.body as { id: number }).id;
    await page.locator(`calendar-view .agenda [data-event-id="${id}"]`).waitFor({ timeout: 10_000 });
    expect(await page.locator(`calendar-view .agenda [data-event-id="${id}"]`).innerText()).toContain(
      'Pop-up gig',
    );
  });

  it('shows one day and moves by day', async () => {
    await page.locator('calendar-view button[aria-pressed]', { hasText: 'Day' }).click();
    await settled();
    const title = () =>
      page.evaluate(
        () => document.querySelector('calendar-view')!.shadowRoot!.querySelector('h2')!.textContent,
      );
    expect(await title()).toBe('Thursday, March 12, 2026');
    await page.locator('calendar-view button[aria-label="Next day"]').click();
    await settled();
    expect(await title()).toBe('Friday, March 13, 2026');
    const ids = await page.evaluate(() =>
      [
        ...document
          .querySelector('calendar-view')!
          .shadowRoot!.querySelectorAll<HTMLElement>('ol.events [data-event-id]'),
      ].map((b) => Number(b.dataset.eventId)),
    );
    expect(ids.sort()).toEqual([...((await marchByDay()).get('2026-03-13') ?? [])].sort());
  });

  it('pages the upcoming list forward and back by cursor', async () => {
    await page.locator('calendar-view button[aria-pressed]', { hasText: 'List' }).click();
    await settled();
    const ids = () =>
      page.evaluate(() =>
        [
          ...document
            .querySelector('calendar-view')!
            .shadowRoot!.querySelectorAll<HTMLElement>('ol.events [data-event-id]'),
        ].map((b) => Number(b.dataset.eventId)),
      );
    const filter = { endsAfter: '2026-03-10 00:00:00', strictDates: true };
    const first = await ids();
    expect(first).toEqual(await apiEvents({ filter, first: 10 }));
    await page.locator('calendar-view .pager button', { hasText: 'Later' }).click();
    await settled();
    const second = await ids();
    expect(second).toEqual((await apiEvents({ filter, first: 20 })).slice(10));
    await page.locator('calendar-view .pager button', { hasText: 'Earlier' }).click();
    await settled();
    expect(await ids()).toEqual(first);
    expect(await page.locator('calendar-view .pager button', { hasText: 'Earlier' }).isDisabled()).toBe(true);
  });

  it('filters by category from the filter bar', async () => {
    const resubscribed = page.waitForResponse(
      (response) => response.url().includes('CalendarEventChanged') && response.url().includes('concerts'),
    );
    await page.locator('calendar-view select[name=categories]').selectOption('concerts');
    await settled();
    await resubscribed;
    // The stream of every event's changes closed, one of the concerts' open in its place.
    await expect.poll(() => closedStreams.length).toBe(1);
    expect(new URL(closedStreams[0]!).searchParams.get('variables')).toBe('{"filter":{}}');
    const filter = { endsAfter: '2026-03-10 00:00:00', strictDates: true, categories: ['concerts'] };
    const shown = await page.evaluate(() =>
      [
        ...document
          .querySelector('calendar-view')!
          .shadowRoot!.querySelectorAll<HTMLElement>('ol.events [data-event-id]'),
      ].map((b) => Number(b.dataset.eventId)),
    );
    expect(shown.length).toBeGreaterThan(0);
    expect(shown).toEqual(await apiEvents({ filter, first: 10 }));
    expect(shown).not.toEqual(
      await apiEvents({ filter: { endsAfter: filter.endsAfter, strictDates: true }, first: 10 }),
    );
  });

  it('asked for its documents by id alone from the first request, and nothing outside this server', async () => {
    const graphql = requests.filter((url) => url.startsWith(`${origin}/graphql`));
    expect(graphql.length).toBeGreaterThan(5);
    for (const url of graphql) {
      const params = new URL(url).searchParams;
      expect(params.get('documentId'), url).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(params.has('query'), url).toBe(false);
    }
    expect(requests.filter((url) => !url.startsWith(`${origin}/`))).toEqual([]);
  });

  it('notices an answer of 400 or more and a console error (the check after each step sees them)', async () => {
    await page.evaluate(async () => {
      await fetch('/no/such/page');
      console.error('deliberate');
    });
    const expected = [
      `404: ${origin}/no/such/page`,
      'console: Failed to load resource: the server responded with a status of 404 (Not Found)',
      'console: deliberate',
    ];
    await expect.poll(() => problems.length).toBe(expected.length);
    expect(problems.splice(0).sort()).toEqual(expected.sort());
  });
});
