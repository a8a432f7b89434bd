import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CostInputError, formatCost, parseCostInput } from '../../src/core/graphql/cost.js';
import { autoParagraphs } from '../../src/core/rules/texts/html.js';
import { ANONYMOUS, type Role, type Viewer } from '../../src/core/rules/permissions.js';
import { invalidParams } from '../../src/core/errors/errors.js';
import { EVENT_BODY, EVENT_PARAMS, readEventBody as readParsedBody } from '../../src/events/rest-body.js';
import { parseBody } from '../../src/core/rest/body-fields.js';
import { withParamNames } from '../../src/core/rest/param-names.js';
import {
  type CheckOptions,
  type EventValues,
  checkEventInput,
} from '../../src/events/service/event-input.js';
import { publicationStatus, scheduleOf } from '../../src/events/service/event-schedule.js';
import { createEvent, deleteEvent, updateEvent } from '../../src/events/service/event-writes.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { createOrganizer, createTerm, createVenue } from '../helpers/fixtures.js';
import { createUser } from '../helpers/users.js';

// The event write service below the APIs: a REST body read and checked (named as REST names it), the
// schedule rules (D10–D14), cost input, and the transactional writes with explicit viewers (atomicity,
// counts, slugs, concurrency), given REST bodies read into the domain input.

const NOW = new Date('2026-11-22T12:00:00Z');
const CREATE: CheckOptions = {
  mode: 'create',
  zone: 'UTC',
  siteTimezone: 'UTC',
  passwordAllowed: true,
  now: NOW,
};
const UPDATE: CheckOptions = { ...CREATE, mode: 'update' };
const REQUIRED = { title: 'Concert', start_date: '2027-01-15 18:00:00', end_date: '2027-01-15 21:00:00' };

/** A raw REST body as its input type parses it, read into the domain. */
const readRestBody = (body: unknown) => readParsedBody(parseBody(EVENT_BODY, body));

/** A REST body read, then checked without the database, errors named as the REST routes name them. */
function readEventBody(body: unknown, options: CheckOptions): EventValues {
  try {
    const { input, unreadable } = readRestBody(body);
    const { values, bad } = checkEventInput(input, unreadable, options);
    if (Object.keys(bad).length) throw invalidParams(bad);
    return values;
  } catch (error) {
    throw withParamNames(error, EVENT_PARAMS);
  }
}

/** A REST body as the service's domain input. */
const rest = (body: Record<string, unknown>) => readRestBody(body).input;

function errorOf(run: () => unknown): { code: string; status: number; data: Record<string, unknown> } {
  try {
    run();
  } catch (error) {
    return error as never;
  }
  throw new Error('expected an error');
}

describe('parseCostInput', () => {
  it.each([
    ['$23', { cost: '23', currencySymbol: '$', currencyPosition: 'prefix' }],
    ['20$', { cost: '20', currencySymbol: '$', currencyPosition: 'postfix' }],
    ['$ 2', { cost: '2', currencySymbol: '$', currencyPosition: 'prefix' }],
    ['2 $', { cost: '2', currencySymbol: '$', currencyPosition: 'postfix' }],
    ['free, 20$, 30$', { cost: '0,20,30', currencySymbol: '$', currencyPosition: 'postfix' }],
    ['10 - 20 €', { cost: '10,20', currencySymbol: '€', currencyPosition: 'postfix' }],
    ['€10–€20', { cost: '10,20', currencySymbol: '€', currencyPosition: 'prefix' }],
    ['Free – 30$', { cost: '0,30', currencySymbol: '$', currencyPosition: 'postfix' }],
    ['12,50 EUR', { cost: '12.50', currencySymbol: 'EUR', currencyPosition: 'postfix' }],
    ['$1,000', { cost: '1000', currencySymbol: '$', currencyPosition: 'prefix' }],
    ['Free', { cost: '0', currencySymbol: '', currencyPosition: '' }],
    ['15', { cost: '15', currencySymbol: '', currencyPosition: '' }],
    ['', { cost: '', currencySymbol: '', currencyPosition: '' }],
  ])('reads %j', (input, expected) => {
    expect(parseCostInput(input)).toEqual(expected);
  });

  it('reads arrays and numbers, sorting the values and keeping each once', () => {
    expect(parseCostInput(['30$', '0$', '20$', '20$'])).toEqual({
      cost: '0,20,30',
      currencySymbol: '$',
      currencyPosition: 'postfix',
    });
    expect(parseCostInput([12.5, 3])).toEqual({ cost: '3,12.5', currencySymbol: '', currencyPosition: '' });
    expect(parseCostInput([])).toEqual({ cost: '', currencySymbol: '', currencyPosition: '' });
  });

  it('drops the symbol when the priced parts disagree, as the reference', () => {
    expect(parseCostInput(['free', '20¥', '30$'])).toEqual({
      cost: '0,20,30',
      currencySymbol: '',
      currencyPosition: '',
    });
    expect(parseCostInput(['free', '20¥'])).toEqual({
      cost: '0,20',
      currencySymbol: '¥',
      currencyPosition: 'postfix',
    });
  });

  it('refuses what has no stored form: free text, negative numbers, objects', () => {
    for (const input of ['Donation', 'foo bar', 'Donation 5', -3, [{}], true]) {
      expect(() => parseCostInput(input)).toThrow(CostInputError);
    }
  });

  it('formats what it stores as the reference does', () => {
    expect(formatCost(parseCostInput(['0$', '20$', '30$']))).toBe('Free – 30$');
    expect(formatCost(parseCostInput('$23'))).toBe('$23');
  });
});

describe('autoParagraphs', () => {
  it('puts plain text in paragraphs and leaves HTML blocks alone', () => {
    expect(autoParagraphs('An event content')).toBe('<p>An event content</p>');
    expect(autoParagraphs('One\nline\n\nTwo')).toBe('<p>One<br />\nline</p>\n<p>Two</p>');
    expect(autoParagraphs('<p>Already</p>')).toBe('<p>Already</p>');
    expect(autoParagraphs('  ')).toBe('');
  });
});

describe('readEventBody', () => {
  it('names every missing required field on create, and none on update', () => {
    expect(errorOf(() => readEventBody({ title: 'x' }, CREATE))).toMatchObject({
      code: 'rest_missing_callback_param',
      data: { params: ['start_date', 'end_date'] },
    });
    expect(
      errorOf(() => readEventBody({ title: null, start_date: null, end_date: '' }, CREATE)).data.params,
    ).toEqual(['title', 'start_date']);
    expect(readEventBody({}, UPDATE)).toEqual({});
  });

  it('names every invalid field at once', () => {
    const error = errorOf(() =>
      readEventBody(
        {
          ...REQUIRED,
          title: '  ',
          start_date: 'before my birthday',
          status: 'kinda_thinking_about_it',
          website: 'foo',
          featured: 'maybe',
          author: 'x',
          cost: 'Donation',
          venue: 'Main Hall',
          organizer: '1,x',
          categories: [{ slug: 'x' }],
          tags: [true],
          post_parent: -1,
          slug: '!!!',
        },
        CREATE,
      ),
    );
    expect(error.code).toBe('rest_invalid_param');
    expect(Object.keys(error.data.params as object).sort()).toEqual(
      [
        'author',
        'categories',
        'cost',
        'featured',
        'organizer',
        'post_parent',
        'slug',
        'start_date',
        'status',
        'tags',
        'title',
        'venue',
        'website',
      ].sort(),
    );
  });

  it('coerces the boolean words clients send', () => {
    const input = readEventBody(
      {
        all_day: 'yes',
        show_map: '1',
        show_map_link: 0,
        hide_from_listings: 'no',
        sticky: 'TRUE',
        featured: false,
      },
      UPDATE,
    );
    expect(input).toMatchObject({
      allDay: true,
      showMap: true,
      showMapLink: false,
      hideFromListings: false,
      sticky: true,
      featured: false,
    });
  });

  it('reads dates in the body time zone, honouring an explicit offset (D13)', () => {
    const input = readEventBody(
      {
        ...REQUIRED,
        timezone: 'America/New_York',
        start_date: '2031-05-01 10:00:00',
        end_date: '2031-05-01T10:00:00+02:00',
      },
      CREATE,
    );
    expect(input.timezone).toBe('America/New_York');
    expect(input.start!.toUTC().toISO()).toBe('2031-05-01T14:00:00.000Z');
    expect(input.end!.toUTC().toISO()).toBe('2031-05-01T08:00:00.000Z');
    expect(input.end!.zoneName).toBe('America/New_York');
  });

  it('reads phrases, timestamps and UTC offsets', () => {
    const input = readEventBody(
      { ...REQUIRED, timezone: 'UTC+2', start_date: 'tomorrow 9am', end_date: 1_800_000_000 },
      CREATE,
    );
    expect(input.start!.toFormat('yyyy-MM-dd HH:mm')).toBe('2026-11-23 09:00');
    expect(input.end!.toUnixInteger()).toBe(1_800_000_000);
    expect(
      errorOf(() => readEventBody({ ...REQUIRED, timezone: 'Mars/Olympus' }, CREATE)).data.params,
    ).toHaveProperty('timezone');
    expect(errorOf(() => readEventBody({ ...REQUIRED, timezone: 'EST' }, CREATE)).data.params).toHaveProperty(
      'timezone',
    );
  });

  it('sets the publication date from date (event zone) or date_utc (UTC)', () => {
    expect(
      readEventBody({ date: '2026-01-01 10:00:00', timezone: 'Europe/Paris' }, UPDATE).publishedAt,
    ).toEqual(new Date('2026-01-01T09:00:00Z'));
    expect(
      readEventBody({ date: '2026-01-01 10:00:00', date_utc: '2026-01-01 10:00:00' }, UPDATE).publishedAt,
    ).toEqual(new Date('2026-01-01T10:00:00Z'));
  });

  it('reads venues and organizers in every form (inline ones into their domain input), in order; empty values remove them (D9)', () => {
    const organizers = readEventBody(
      { organizer: [{ organizer: 'A' }, { id: 5 }, '7', 9, { id: '11' }] },
      UPDATE,
    ).organizers;
    expect(organizers).toEqual([
      { kind: 'new', input: { name: 'A' }, unreadable: [] },
      { kind: 'id', id: 5, inObject: true },
      { kind: 'id', id: 7, inObject: false },
      { kind: 'id', id: 9, inObject: false },
      { kind: 'id', id: 11, inObject: true },
    ]);
    expect(readEventBody({ organizer: '3, 4' }, UPDATE).organizers).toEqual([
      { kind: 'id', id: 3, inObject: false },
      { kind: 'id', id: 4, inObject: false },
    ]);
    expect(readEventBody({ organizer: { organizer: 'Solo' } }, UPDATE).organizers).toEqual([
      { kind: 'new', input: { name: 'Solo' }, unreadable: [] },
    ]);
    expect(readEventBody({ venue: '12' }, UPDATE).venues).toEqual([{ kind: 'id', id: 12, inObject: false }]);
    for (const empty of ['', 0, '0', [], null, { venue: '', city: '' }]) {
      expect(readEventBody({ venue: empty, organizer: empty }, UPDATE)).toEqual({
        venues: [],
        organizers: [],
      });
    }
  });

  it('reads categories and tags as ids, names, comma lists and objects (D3)', () => {
    expect(
      readEventBody(
        { categories: 'cat1, 12,cat2', tags: [3, 'outdoor', { id: 4 }, { name: 'Indoor' }] },
        UPDATE,
      ),
    ).toEqual({
      categories: [
        { kind: 'name', name: 'cat1' },
        { kind: 'id', id: 12 },
        { kind: 'name', name: 'cat2' },
      ],
      tags: [
        { kind: 'id', id: 3 },
        { kind: 'name', name: 'outdoor' },
        { kind: 'id', id: 4 },
        { kind: 'name', name: 'Indoor' },
      ],
    });
    expect(readEventBody({ categories: '', tags: [] }, UPDATE)).toEqual({ categories: [], tags: [] });
  });

  it('ignores unknown and read-only fields; refuses a password where it is not accepted', () => {
    const input = readEventBody(
      {
        ...REQUIRED,
        id: 99,
        url: 'x',
        utc_start_date: 'x',
        cost_details: {},
        timezone_abbr: 'X',
        json_ld: {},
      },
      CREATE,
    );
    expect(Object.keys(input).sort()).toEqual(['end', 'start', 'title']);
    expect(readEventBody({ password: '' }, UPDATE).password).toBeNull();
    expect(
      errorOf(() => readEventBody({ password: 'x' }, { ...UPDATE, passwordAllowed: false })).data.params,
    ).toHaveProperty('password');
  });
});

describe('scheduleOf', () => {
  const at = (wall: string, zone = 'UTC') => DateTime.fromFormat(wall, 'yyyy-MM-dd HH:mm:ss', { zone });
  const stored = {
    timezone: 'America/New_York',
    localStart: '2031-01-10 10:00:00',
    localEnd: '2031-01-10 12:00:00',
    allDay: false,
  };

  it('stretches all-day events over whole days, several days too', () => {
    const input: EventValues = {
      start: at('2031-01-10 10:00:00'),
      end: at('2031-01-12 09:30:00'),
      allDay: true,
    };
    expect(scheduleOf(input, null, 'UTC')).toMatchObject({
      localStart: '2031-01-10 00:00:00',
      localEnd: '2031-01-12 23:59:59',
      allDay: true,
    });
  });

  it('clamps an end before the start to the start, in local and UTC alike (D14)', () => {
    const zone = 'Europe/Paris';
    const schedule = scheduleOf(
      { start: at('2031-01-10 10:00:00', zone), end: at('2031-01-09 10:00:00', zone), timezone: zone },
      null,
      'UTC',
    )!;
    expect(schedule.localEnd).toBe('2031-01-10 10:00:00');
    expect(schedule.endsAt).toEqual(schedule.startsAt);
  });

  it('re-reads the stored wall-clock when only the zone changes (D10)', () => {
    const schedule = scheduleOf({ timezone: 'Europe/Paris' }, stored, 'UTC')!;
    expect(schedule).toMatchObject({
      timezone: 'Europe/Paris',
      localStart: '2031-01-10 10:00:00',
      localEnd: '2031-01-10 12:00:00',
    });
    expect(schedule.startsAt).toEqual(new Date('2031-01-10T09:00:00Z'));
  });

  it('keeps the event zone when dates come without one (D11), and applies one date alone (D12)', () => {
    const start = at('2031-01-10 11:00:00', 'America/New_York');
    expect(scheduleOf({ start }, stored, 'UTC')).toMatchObject({
      timezone: 'America/New_York',
      localStart: '2031-01-10 11:00:00',
      localEnd: '2031-01-10 12:00:00',
    });
    const late = at('2031-01-10 15:00:00', 'America/New_York');
    expect(scheduleOf({ start: late }, stored, 'UTC')).toMatchObject({
      localStart: '2031-01-10 15:00:00',
      localEnd: '2031-01-10 15:00:00',
    });
    expect(scheduleOf({ title: 'x' } as EventValues, stored, 'UTC')).toBeNull();
  });

  it('gets daylight saving time right', () => {
    const zone = 'America/New_York';
    const schedule = scheduleOf(
      { start: at('2031-03-08 12:00:00', zone), end: at('2031-03-09 12:00:00', zone), timezone: zone },
      null,
      'UTC',
    )!;
    expect(schedule.startsAt).toEqual(new Date('2031-03-08T17:00:00Z'));
    expect(schedule.endsAt).toEqual(new Date('2031-03-09T16:00:00Z'));
  });
});

describe('publicationStatus', () => {
  it('schedules a published event dated in the future and publishes a due one', () => {
    expect(publicationStatus('publish', new Date('2030-01-01'), NOW)).toBe('future');
    expect(publicationStatus('future', new Date('2020-01-01'), NOW)).toBe('publish');
    expect(publicationStatus('future', new Date('2030-01-01'), NOW)).toBe('future');
    expect(publicationStatus('draft', new Date('2030-01-01'), NOW)).toBe('draft');
  });
});

describe('writes', () => {
  let h: Harness;
  const viewers = {} as Record<Role, Viewer>;
  const writer = (viewer: Viewer) => ({ db: h.db, config: h.config, writes: h.writes, viewer });
  const read = (tx: Parameters<Parameters<typeof createEvent>[2]>[0], id: number) =>
    tx.event.findUniqueOrThrow({ where: { id }, include: { venues: true, organizers: true, terms: true } });

  beforeAll(async () => {
    h = await startHarness();
    for (const role of ['administrator', 'editor', 'author', 'contributor', 'subscriber'] as const) {
      const user = await createUser(h, role);
      viewers[role] = { userId: user.id, login: user.login, role };
    }
  });
  afterAll(() => h.close());

  it('checks the viewer (401/403) before the body (400), so ids are not probed (D22)', async () => {
    await expect(createEvent(writer(ANONYMOUS), rest({ title: 'x' }), read)).rejects.toMatchObject({
      status: 401,
    });
    await expect(
      createEvent(writer(ANONYMOUS), rest({ ...REQUIRED, author: 99999 }), read),
    ).rejects.toMatchObject({
      status: 401,
      code: 'rest_forbidden',
    });
    await expect(
      createEvent(writer(viewers.subscriber), rest({ ...REQUIRED, author: 99999 }), read),
    ).rejects.toMatchObject({ status: 403 });
    await expect(
      createEvent(writer(viewers.editor), rest({ ...REQUIRED, author: 99999 }), read),
    ).rejects.toMatchObject({
      status: 400,
      code: 'rest_invalid_param',
    });
    await expect(createEvent(writer(ANONYMOUS), rest(REQUIRED), read)).rejects.toMatchObject({
      status: 401,
      code: 'rest_forbidden',
    });
    await expect(createEvent(writer(viewers.subscriber), rest(REQUIRED), read)).rejects.toMatchObject({
      status: 403,
    });
  });

  it('changes nothing when a later part of the write fails (the third inline organizer)', async () => {
    const before = {
      events: await h.db.event.count(),
      organizers: await h.db.organizer.count(),
      venues: await h.db.venue.count(),
      terms: await h.db.term.count(),
    };
    await expect(
      createEvent(
        writer(viewers.editor),
        rest({
          ...REQUIRED,
          title: 'Half-way',
          venue: { venue: 'Atomic Hall' },
          categories: 'atomic-category',
          organizer: [
            { organizer: 'Atomic A' },
            { organizer: 'Atomic B' },
            { organizer: 'Atomic C', website: 'not a url' },
          ],
        }),
        read,
      ),
    ).rejects.toMatchObject({
      status: 400,
      code: 'rest_invalid_param',
      data: { params: { organizers: 'Invalid parameter.' } },
    });
    const after = {
      events: await h.db.event.count(),
      organizers: await h.db.organizer.count(),
      venues: await h.db.venue.count(),
      terms: await h.db.term.count(),
    };
    expect(after).toEqual(before);
  });

  it('keeps term counts exact through create, status changes, relinking, trash and deletion', async () => {
    const music = await createTerm(h.db, 'tribe_events_cat', 'Counted Music');
    const jazz = await createTerm(h.db, 'tribe_events_cat', 'Counted Jazz');
    const count = async (id: number) => (await h.db.term.findUniqueOrThrow({ where: { id } })).eventCount;
    const event = await createEvent(
      writer(viewers.editor),
      rest({ ...REQUIRED, categories: [music.id] }),
      read,
    );
    const draft = await createEvent(
      writer(viewers.editor),
      rest({ ...REQUIRED, status: 'draft', categories: [music.id] }),
      read,
    );
    expect(await count(music.id)).toBe(1);
    await updateEvent(writer(viewers.editor), { id: draft.id }, rest({ status: 'publish' }), read);
    expect(await count(music.id)).toBe(2);
    await updateEvent(writer(viewers.editor), { id: event.id }, rest({ categories: [jazz.id] }), read);
    expect([await count(music.id), await count(jazz.id)]).toEqual([1, 1]);
    await deleteEvent(writer(viewers.editor), { id: event.id }, false, read);
    expect(await count(jazz.id)).toBe(0);
    await deleteEvent(writer(viewers.editor), { id: draft.id }, true, read);
    expect(await count(music.id)).toBe(0);
    expect(await h.db.event.findUnique({ where: { id: draft.id } })).toBeNull();
  });

  it('makes slugs unique among events and keeps an event its own slug', async () => {
    const first = await createEvent(writer(viewers.author), rest({ ...REQUIRED, title: 'Same Title' }), read);
    const second = await createEvent(
      writer(viewers.author),
      rest({ ...REQUIRED, title: 'Same Title' }),
      read,
    );
    const third = await createEvent(
      writer(viewers.author),
      rest({ ...REQUIRED, title: 'Other', slug: 'Same Title' }),
      read,
    );
    expect([first.slug, second.slug, third.slug]).toEqual(['same-title', 'same-title-2', 'same-title-3']);
    const renamed = await updateEvent(
      writer(viewers.author),
      { slug: 'same-title' },
      rest({ slug: 'same-title', title: 'Renamed' }),
      read,
    );
    expect(renamed.slug).toBe('same-title');
  });

  it('never loses a field to concurrent updates of one event', async () => {
    const event = await createEvent(writer(viewers.editor), rest({ ...REQUIRED, title: 'Busy' }), read);
    const venue = await createVenue(h.db);
    const organizer = await createOrganizer(h.db);
    const tag = await createTerm(h.db, 'post_tag', 'Busy Tag');
    const bodies: Array<Record<string, unknown>> = [
      { title: 'Busy, renamed' },
      { cost: '$42' },
      { website: 'https://busy.example' },
      { excerpt: 'Short' },
      { featured: true },
      { sticky: 'yes' },
      { venue: venue.id },
      { organizer: [organizer.id] },
      { tags: [tag.id] },
      { start_date: '2027-01-15 17:00:00' },
      { end_date: '2027-01-15 23:00:00' },
      { show_map: 1 },
    ];
    await Promise.all(
      bodies.map((body) => updateEvent(writer(viewers.editor), { id: event.id }, rest(body), read)),
    );
    const after = await read(h.db as never, event.id);
    expect(after).toMatchObject({
      title: 'Busy, renamed',
      cost: '42',
      currencySymbol: '$',
      website: 'https://busy.example',
      excerpt: '<p>Short</p>',
      featured: true,
      sticky: true,
      showMap: true,
      localStart: '2027-01-15 17:00:00',
      localEnd: '2027-01-15 23:00:00',
    });
    expect(after.venues.map((link) => link.venueId)).toEqual([venue.id]);
    expect(after.organizers.map((link) => link.organizerId)).toEqual([organizer.id]);
    expect(after.terms.map((link) => link.termId)).toEqual([tag.id]);
  });

  it('counts concurrent creates that share a term exactly, and gives them distinct slugs', async () => {
    const tag = await createTerm(h.db, 'post_tag', 'Crowded');
    const created = await Promise.all(
      Array.from({ length: 8 }, () =>
        createEvent(
          writer(viewers.editor),
          rest({ ...REQUIRED, title: 'Crowd', tags: [tag.id, 'crowd-new'] }),
          read,
        ),
      ),
    );
    expect(new Set(created.map((event) => event.slug)).size).toBe(8);
    expect((await h.db.term.findUniqueOrThrow({ where: { id: tag.id } })).eventCount).toBe(8);
    const fresh = await h.db.term.findMany({ where: { taxonomy: 'post_tag', name: 'crowd-new' } });
    expect(fresh).toHaveLength(1);
    expect(fresh[0]!.eventCount).toBe(8);
  });
});
