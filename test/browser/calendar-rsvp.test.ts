import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, type Page, chromium } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CalendarRsvpDocument } from '../../examples/generated/calendar-view/graphql.js';
import { documentHash } from '../../src/core/config/trusted-documents.js';
import { calendarDocuments } from '../../src/core/http/embed.js';
import {
  CHROMIUM,
  PROVIDE_CHROMIUM_TIMEOUT,
  provideChromium,
  seriousViolations,
} from '../helpers/processes/chromium.js';
import { createEvent } from '../helpers/fixtures.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { type Credentials, createUser } from '../helpers/users.js';
import { createType, rsvp } from '../tickets/tickets-setup.js';

// <calendar-view>'s RSVP as a visitor uses it: the service's /calendar page on a real port, Debian's
// Chromium driven by playwright-core, the response cache on. An event's details list its ticket
// types with what is left; a type on sale has a form, filled and sent here with the keyboard alone;
// refusals (the browser's own constraints, the server's rest_invalid_param, SOLD_OUT in a race) are
// shown beside the form in an alert region and move focus; axe-core finds nothing serious or critical
// in the form, with or without an error. Every step fails on a console error, an uncaught exception,
// a failed request or an answer of 400 or more (a refused RSVP is a field error: a 200).
//
// The server's clock is the machine's (sales windows are checked against it), so the events are in
// 2030; the browser's is frozen a week before them.

const ZONE = 'Europe/Paris';
const NOW = new Date('2030-06-03T10:00:00Z');
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
let editor: Credentials;
let server: Server;
let origin: string;
let browser: BrowserContext;
let page: Page;
let profile: string;
const problems: string[] = [];
/** The GraphQL requests the page sent: method, query string and JSON body. */
const graphql: Array<{ method: string; url: string; body: Record<string, unknown> | null }> = [];
const events: Record<string, number> = {};
const types: Record<string, number> = {};

beforeAll(provideChromium, PROVIDE_CHROMIUM_TIMEOUT);

beforeAll(async () => {
  h = await startHarness({ CALENDAR_TIMEZONE: ZONE, CALENDAR_CACHE: 'on' });
  editor = await createUser(h, 'editor');
  const event = async (title: string, start: string, fields = {}) =>
    (events[title] = (
      await createEvent(h.db, {
        title,
        start,
        timezone: ZONE,
        fields: { publishedAt: new Date('2030-01-01T00:00:00Z'), ...fields },
      })
    ).id);
  const concert = await event('Garden concert', '2030-06-10 19:00:00');
  const tasting = await event('Private tasting', '2030-06-12 19:00:00', { password: 'cellar' });
  const type = async (name: string, eventId: number, input: Record<string, unknown>) =>
    (types[name] = await createType(h, editor, eventId, { name, ...input }));
  await type('Free entry', concert, { capacity: 5, maxPerRequest: 4 });
  await type('Supporter', concert, { kind: 'TICKET', price: '12.50', currency: 'EUR', capacity: 1 });
  await type('Late list', concert, { capacity: 1, waitlist: true });
  await type('Early bird', concert, { salesEnd: '2020-01-01 00:00:00' });
  await type('Door list', concert, { salesStart: '2030-06-08 10:00:00' });
  await type('Last seat', concert, { capacity: 1 });
  await type('Cellar list', tasting, { capacity: 10 });
  // Sold out without a waitlist; full with one person waiting.
  for (const [ticketTypeId, name] of [
    [types['Supporter'], 'Sam'],
    [types['Late list'], 'Lee'],
    [types['Late list'], 'Lou'],
  ] as const) {
    const answer = await rsvp(h, { ticketTypeId, name, email: `${name.toLowerCase()}@example.org` });
    expect(answer.errors).toBeUndefined();
  }

  server = h.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  profile = mkdtempSync(join(tmpdir(), 'calendar-rsvp-chromium-'));
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: { width: 1280, height: 900 },
    locale: 'en-GB',
    timezoneId: ZONE,
  });
  browser.setDefaultTimeout(20_000);
  page = browser.pages()[0] ?? (await browser.newPage());
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`exception: ${error.message}`));
  page.on('requestfailed', (request) => {
    // The live subscription's stream, closed when the page goes: the page's own doing.
    if (request.headers().accept !== 'text/event-stream')
      problems.push(`failed: ${request.url()} (${request.failure()?.errorText})`);
  });
  page.on('request', (request) => {
    if (!request.url().startsWith(`${origin}/graphql`)) return;
    graphql.push({
      method: request.method(),
      url: request.url(),
      body: request.method() === 'POST' ? (request.postDataJSON() as Record<string, unknown>) : null,
    });
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

/** What has keyboard focus inside the component. */
function focused() {
  return page.evaluate(() => {
    const element = document.querySelector('calendar-view')!.shadowRoot!.activeElement as HTMLElement | null;
    return { id: element?.id, date: element?.dataset.date, eventId: element?.dataset.eventId };
  });
}

const ticket = (name: string) => page.locator(`calendar-view li[data-ticket-type="${types[name]}"]`);
const availability = (name: string) => ticket(name).locator('[data-field=availability]').innerText();
const message = (name: string) => ticket(name).locator('[data-field=rsvp-error]');
const rsvpPosts = () => graphql.filter((request) => request.method === 'POST');

async function openConcert(): Promise<void> {
  await page.locator(`calendar-view [data-event-id="${events['Garden concert']}"]`).first().click();
  await ticket('Free entry').locator('form').waitFor();
}

async function closeDetails(): Promise<void> {
  await page.keyboard.press('Escape');
  await page.locator('calendar-view dialog[open]').waitFor({ state: 'detached' });
}

describe("an event's tickets and its RSVP form in Chromium", () => {
  afterEach(() => {
    expect(problems.splice(0)).toEqual([]);
  });

  it('reserves with the keyboard alone: the confirmation with its token, fewer places left, the attendee stored', async () => {
    await page.goto(`${origin}/calendar`);
    await page.locator('calendar-view [aria-busy="false"]').waitFor();
    // From the top of the page to the grid, to the 10th, to its event, into its details.
    await page.locator('body').focus();
    for (let i = 0; i < 20 && !(await focused()).date; i++) await page.keyboard.press('Tab');
    expect((await focused()).date).toBe('2030-06-03');
    for (let i = 0; i < 7; i++) await page.keyboard.press('ArrowRight');
    expect((await focused()).date).toBe('2030-06-10');
    await page.keyboard.press('Enter');
    expect(Number((await focused()).eventId)).toBe(events['Garden concert']);
    await page.keyboard.press('Enter');
    await ticket('Free entry').locator('form').waitFor();

    expect(await availability('Free entry')).toBe('5 places left');
    expect(await ticket('Free entry').locator('[data-field=price]').innerText()).toBe('Free');
    const nameId = `rsvp-${types['Free entry']}-name`;
    for (let i = 0; i < 20 && (await focused()).id !== nameId; i++) await page.keyboard.press('Tab');
    expect((await focused()).id).toBe(nameId);
    await page.keyboard.type('Ada Lovelace');
    await page.keyboard.press('Tab');
    await page.keyboard.type('ada@example.org');
    await page.keyboard.press('Tab');
    expect((await focused()).id).toBe(`rsvp-${types['Free entry']}-guests`);
    await page.keyboard.press('Backspace');
    await page.keyboard.type('2');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');

    const confirmation = ticket('Free entry').locator('.confirmation');
    await confirmation.waitFor();
    expect(await confirmation.getAttribute('data-status')).toBe('GOING');
    expect(await confirmation.innerText()).toContain('You are going: 2 places reserved.');
    expect(await confirmation.innerText()).toContain('Keep this to change or cancel your reservation.');
    // Said by the polite region it appears in, and focused.
    expect(await ticket('Free entry').locator('[aria-live=polite] .confirmation').count()).toBe(1);
    expect((await focused()).id).toBe(`rsvp-${types['Free entry']}-confirmation`);
    await expect.poll(() => availability('Free entry')).toBe('3 places left');
    expect(await ticket('Free entry').locator('form').count()).toBe(0);

    const token = await confirmation.locator('[data-field=token]').innerText();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const stored = await h.db.attendee.findMany({ where: { ticketTypeId: types['Free entry'] } });
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({
      name: 'Ada Lovelace',
      email: 'ada@example.org',
      guests: 2,
      status: 'GOING',
    });
    // The token shown is the reservation's.
    const mine = await h.http.post('/graphql').send({
      query: 'query ($token: String!) { attendeeByToken(token: $token) { id } }',
      variables: { token },
    });
    expect(mine.body.data.attendeeByToken.id).toBe(stored[0]!.id);
    // Sent as the calendar's document, by its id alone.
    expect(rsvpPosts()).toHaveLength(1);
    expect(rsvpPosts()[0]!.body).toMatchObject({
      documentId: CalendarRsvpDocument.__meta__!.hash,
      operationName: 'CalendarRsvp',
      variables: { input: { ticketTypeId: types['Free entry'], name: 'Ada Lovelace', guests: 2 } },
    });
    expect(rsvpPosts()[0]!.body).not.toHaveProperty('query');
  });

  it('shows each type as it stands: sold out, a waitlist, closed, not yet open — a form only where it sells', async () => {
    expect(await availability('Supporter')).toBe('Sold out');
    expect(await ticket('Supporter').locator('[data-field=price]').innerText()).toBe('€12.50');
    expect(await ticket('Supporter').locator('form').count()).toBe(0);
    expect(await availability('Late list')).toBe('Waitlist open (1 waiting)');
    expect(await availability('Early bird')).toBe('Sales closed');
    expect(await ticket('Early bird').locator('form').count()).toBe(0);
    // In the event's zone, in the page's language (`lang="en"`).
    expect(await availability('Door list')).toMatch(/^Not on sale yet: opens Jun 8, 2030, 10:00\sAM$/);
    expect(await ticket('Door list').locator('form').count()).toBe(0);
    expect(await availability('Last seat')).toBe('1 place left');

    const form = ticket('Late list').locator('form');
    expect(await form.locator('button[type=submit]').innerText()).toBe('Join the waitlist');
    await form.getByLabel('Name').fill('Max');
    await form.getByLabel('E-mail').fill('max@example.org');
    await form.getByLabel('Number of places').press('Enter');
    const confirmation = ticket('Late list').locator('.confirmation');
    await confirmation.waitFor();
    expect(await confirmation.getAttribute('data-status')).toBe('WAITLISTED');
    expect(await confirmation.innerText()).toContain('You are on the waitlist for 1 place');
    await expect.poll(() => availability('Late list')).toBe('Waitlist open (2 waiting)');
  });

  it('announces SOLD_OUT when the last place went meanwhile, and shows it sold out', async () => {
    expect(await availability('Last seat')).toBe('1 place left');
    const taken = await rsvp(h, {
      ticketTypeId: types['Last seat'],
      name: 'Quick',
      email: 'quick@example.org',
    });
    expect(taken.confirmation?.attendee.status).toBe('GOING');
    const form = ticket('Last seat').locator('form');
    await form.getByLabel('Name').fill('Slow');
    await form.getByLabel('E-mail').fill('slow@example.org');
    await form.getByLabel('E-mail').press('Enter');
    await expect
      .poll(() => message('Last seat').innerText())
      .toBe('The reservation was not made: no places are left for this ticket.');
    expect(await message('Last seat').getAttribute('role')).toBe('alert');
    await expect.poll(() => availability('Last seat')).toBe('Sold out');
    expect(await form.count()).toBe(0);
    expect((await focused()).id).toBe(`rsvp-${types['Last seat']}-message`);
    expect(await h.db.attendee.count({ where: { ticketTypeId: types['Last seat'] } })).toBe(1);
  });

  it('has no serious or critical accessibility violation with the forms open (axe-core)', async () => {
    await closeDetails();
    await openConcert();
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('announces an invalid e-mail, the browser’s and the server’s, beside its field, and focuses it', async () => {
    const form = ticket('Free entry').locator('form');
    const email = form.getByLabel('E-mail');
    const sent = rsvpPosts().length;
    await form.getByLabel('Name').fill('Bob');
    await email.fill('bob');
    await email.press('Enter');
    const said = 'The reservation was not made: please correct the marked fields.';
    await expect.poll(() => message('Free entry').innerText()).toBe(said);
    expect(await email.getAttribute('aria-invalid')).toBe('true');
    const errorId = `rsvp-${types['Free entry']}-email-error`;
    expect(await email.getAttribute('aria-describedby')).toBe(errorId);
    expect(await form.locator(`#${errorId}`).innerText()).toBe(
      'Enter a valid e-mail address, such as name@example.org.',
    );
    expect((await focused()).id).toBe(`rsvp-${types['Free entry']}-email`);
    // The browser refused it: nothing was sent.
    expect(rsvpPosts()).toHaveLength(sent);
    // Valid to the browser, not to the server (no dot in the domain): its rest_invalid_param, the same way.
    await email.fill('bob@example');
    const answer = page.waitForResponse((response) => response.request().method() === 'POST');
    await email.press('Enter');
    expect((await (await answer).json()).errors[0].extensions).toMatchObject({
      code: 'rest_invalid_param',
      data: { params: { email: expect.any(String) } },
    });
    await expect.poll(() => message('Free entry').innerText()).toBe(said);
    expect(await email.getAttribute('aria-invalid')).toBe('true');
    expect((await focused()).id).toBe(`rsvp-${types['Free entry']}-email`);
    expect(await page.getByRole('alert').filter({ hasText: said }).count()).toBe(1);
    expect(await h.db.attendee.count({ where: { email: { startsWith: 'bob' } } })).toBe(0);

    expect(await seriousViolations(page)).toEqual([]);
  });

  it('shows nothing of a password-protected event, its tickets included', async () => {
    await closeDetails();
    await page
      .locator('calendar-view [role=gridcell][data-date="2030-06-12"]')
      .click({ position: { x: 6, y: 6 } });
    // The event alone is refused without its password (event-password-protected): the details close.
    const read = page.waitForResponse(
      (response) => new URL(response.url()).searchParams.get('operationName') === 'CalendarEvent',
    );
    await page.locator(`calendar-view .agenda [data-event-id="${events['Private tasting']}"]`).click();
    const body = await (await read).json();
    expect(body.errors[0].extensions.code).toBe('event-password-protected');
    await expect.poll(() => page.locator('calendar-view dialog[open]').count()).toBe(0);
    const shown = await page.evaluate(() => document.querySelector('calendar-view')!.shadowRoot!.textContent);
    expect(shown).not.toContain('Cellar list');
    expect(await page.locator('calendar-view form.rsvp').count()).toBe(0);
  });

  it('sent every GraphQL request by document id: reads by GET, the RSVP by POST', () => {
    expect(graphql.length).toBeGreaterThan(5);
    for (const request of graphql) {
      if (request.method === 'GET') {
        expect(new URL(request.url).searchParams.get('documentId'), request.url).toMatch(
          /^sha256:[0-9a-f]{64}$/,
        );
        expect(new URL(request.url).searchParams.has('query'), request.url).toBe(false);
      } else {
        expect(request.method).toBe('POST');
        expect(request.body).toMatchObject({ documentId: CalendarRsvpDocument.__meta__!.hash });
        expect(request.body).not.toHaveProperty('query');
      }
    }
  });
});

describe("the calendar's RSVP document on a server running only trusted documents", () => {
  let trusted: Harness;
  const dir = mkdtempSync(join(tmpdir(), 'calendar-rsvp-'));
  beforeAll(async () => {
    // A manifest of one document, none of the calendar's.
    const ping = 'query Ping { __typename }';
    const manifest = join(dir, 'manifest.json');
    writeFileSync(manifest, JSON.stringify({ [`sha256:${documentHash(ping)}`]: ping }));
    trusted = await startHarness({ CALENDAR_TRUSTED_DOCUMENTS: manifest });
  });
  afterAll(async () => {
    await trusted?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs by id (POST), is refused over GET and as text', async () => {
    const eventId = (await createEvent(trusted.db, { title: 'Open rehearsal', start: '2030-06-10 19:00:00' }))
      .id;
    // Written directly: only the manifest's documents (and the calendar's) run here.
    const ticketTypeId = (
      await trusted.db.ticketType.create({ data: { eventId, name: 'Entry', capacity: 3 } })
    ).id;
    const variables = { input: { ticketTypeId, name: 'Ada', email: 'ada@example.org' } };
    const byId = await trusted.http
      .post('/graphql')
      .send({ documentId: CalendarRsvpDocument.__meta__!.hash, variables });
    expect(byId.status).toBe(200);
    expect(byId.body.data.rsvp.attendee.status).toBe('GOING');
    const overGet = await trusted.http
      .get('/graphql')
      .query({ documentId: CalendarRsvpDocument.__meta__!.hash, variables: JSON.stringify(variables) });
    expect(overGet.status).toBe(405);
    const asText = await trusted.http
      .post('/graphql')
      .send({ query: CalendarRsvpDocument.toString(), variables });
    expect([asText.status, asText.body.errors[0].extensions.code]).toEqual([400, 'PERSISTED_QUERY_ONLY']);
    expect(await trusted.db.attendee.count()).toBe(1);
  });

  it("are refused, as the calendar's documents, when a mutation writes anything but an RSVP", () => {
    const writes = [...calendarDocuments()].filter(([, text]) => text.startsWith('mutation'));
    expect(writes.map(([id]) => `sha256:${id}`)).toEqual([CalendarRsvpDocument.__meta__!.hash]);
    const root = mkdtempSync(join(tmpdir(), 'dist-'));
    mkdirSync(join(root, 'embed'));
    const mixed =
      'mutation { rsvp(input: { ticketTypeId: 1, name: "a", email: "a@b.c" }) { token } deleteTicketType(id: 1) { id } }';
    writeFileSync(
      join(root, 'embed/calendar-documents.json'),
      JSON.stringify({ [`sha256:${documentHash(mixed)}`]: mixed }),
    );
    expect(() => calendarDocuments(root)).toThrow(
      /is a mutation: the calendar only reads, and reserves places/,
    );
    rmSync(root, { recursive: true, force: true });
  });
});
