import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContext } from '../../src/core/context/context.js';
import { type EventSelection, findEvent, findEvents } from '../../src/events/service/reads/event-reads.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { createEvent, createOrganizer, createTerm, createVenue } from '../helpers/fixtures.js';

// The event reads of both APIs read a page with every relation family it shows in one statement (after
// one for the ids where Prisma writes the page's conditions): the rows must be exactly Prisma's, whatever
// the links (none, several, images or none, a term's parent or none).

let h: Harness;
const context = () => createContext({ db: h.db, config: h.config, writes: h.writes });

const SELECTIONS: Record<string, EventSelection> = {
  'REST list and single': {
    include: {
      image: true,
      terms: { orderBy: { position: 'asc' }, include: { term: true } },
      venues: { orderBy: { position: 'asc' }, include: { venue: { include: { image: true } } } },
      organizers: { orderBy: { position: 'asc' }, include: { organizer: { include: { image: true } } } },
    },
  },
  'GraphQL, with parents and the author': {
    include: {
      image: true,
      author: true,
      venues: { orderBy: { position: 'asc' }, select: { venue: { include: { image: true } } } },
      organizers: { orderBy: { position: 'asc' }, select: { organizer: true } },
      terms: { orderBy: { position: 'asc' }, select: { term: { include: { parent: true } } } },
    },
  },
  'select mode': {
    select: {
      title: true,
      image: { select: { url: true } },
      venues: { orderBy: { position: 'asc' }, select: { position: true, venue: { select: { name: true } } } },
    },
  },
  'a family asking for more stays with Prisma': {
    include: {
      venues: { orderBy: { position: 'desc' }, include: { venue: true } },
      organizers: { orderBy: { position: 'asc' }, include: { organizer: { include: { author: true } } } },
      terms: { where: { position: 0 }, orderBy: { position: 'asc' }, include: { term: true } },
    },
  },
};

beforeAll(async () => {
  h = await startHarness();
  const media = await h.db.media.create({ data: { url: 'http://example.com/a.jpg', width: 10, height: 10 } });
  const venues = [
    await createVenue(h.db, { imageId: media.id }),
    await createVenue(h.db, { geoLat: 48.85, geoLng: 2.35 }),
  ];
  const organizers = [await createOrganizer(h.db, { imageId: media.id }), await createOrganizer(h.db)];
  const parent = await createTerm(h.db, 'tribe_events_cat');
  const child = await createTerm(h.db, 'tribe_events_cat');
  await h.db.term.update({ where: { id: child.id }, data: { parentId: parent.id } });
  const tag = await createTerm(h.db, 'post_tag');
  for (let i = 0; i < 8; i++) {
    await createEvent(h.db, {
      venueIds: i % 4 === 3 ? [] : i % 2 ? [venues[1]!.id, venues[0]!.id] : [venues[0]!.id],
      organizerIds: i % 3 === 2 ? [] : [organizers[i % 2]!.id, organizers[(i + 1) % 2]!.id],
      termIds: i % 4 === 1 ? [] : [child.id, tag.id, parent.id].slice(i % 3),
      fields: i % 2 ? { imageId: media.id, password: 'pw' } : {},
    });
  }
});
afterAll(() => h.close());

describe('event reads', () => {
  it.each(Object.entries(SELECTIONS))('%s: the rows Prisma reads', async (_name, selection) => {
    const args = {
      where: { status: 'publish' },
      orderBy: [{ localStart: 'asc' as const }, { id: 'asc' as const }],
    };
    const expected = await h.db.event.findMany({ ...selection, ...args } as never);
    expect(expected).toHaveLength(8);
    expect(await findEvents(context(), selection, args)).toEqual(expected);
    expect(await findEvents(context(), selection, { ...args, skip: 3, take: 2 })).toEqual(
      expected.slice(3, 5),
    );
  });

  it.each(Object.entries(SELECTIONS))(
    '%s, under conditions Prisma writes (a text match, a link filter): the rows Prisma reads',
    async (name, selection) => {
      const args = {
        where: { title: { contains: 'e' }, venues: { some: {} } },
        orderBy: [{ localStart: 'desc' as const }, { id: 'desc' as const }],
      };
      const expected = await h.db.event.findMany({ ...selection, ...args } as never);
      expect(expected.length).toBeGreaterThan(2);
      expect(await findEvents(context(), selection, args)).toEqual(expected);
      h.queries.length = 0;
      expect(await findEvents(context(), selection, { ...args, skip: 1, take: 2 })).toEqual(
        expected.slice(1, 3),
      );
      // The ids (Prisma's conditions), then the rows with every family the selection shows, in one
      // statement; a family asking for more is Prisma's.
      if (name !== 'a family asking for more stays with Prisma') expect(h.queries).toHaveLength(2);
    },
  );

  it('one event by id or slug, or null', async () => {
    const selection = SELECTIONS['REST list and single']!;
    const [first] = await h.db.event.findMany({ ...selection, orderBy: { id: 'desc' }, take: 1 } as never);
    const event = first as { id: number; slug: string };
    expect(await findEvent(context(), selection, { id: event.id })).toEqual(first);
    expect(await findEvent(context(), selection, { slug: event.slug })).toEqual(first);
    expect(await findEvent(context(), selection, { id: 999_999 })).toBeNull();
  });

  it('an empty page sends no statement for the relations', async () => {
    h.queries.length = 0;
    expect(await findEvents(context(), SELECTIONS['REST list and single']!, { where: { id: -1 } })).toEqual(
      [],
    );
    expect(h.queries).toHaveLength(1);
  });
});
