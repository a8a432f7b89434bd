import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../helpers/harness.js';
import { createEvent, createOrganizer, createTerm, createVenue } from '../../helpers/fixtures.js';
import { graphqlClient } from '../../helpers/graphql.js';

// Single lookups are nullable: a record that does not exist, or that the viewer may not read, answers
// null for that field alone, with an error entry saying why, so every sibling field of the query
// survives (a non-null lookup turned the whole answer into `data: null`).

let h: Harness;
const ids = { event: 0, draft: 0, venue: 0, draftVenue: 0, organizer: 0, draftOrganizer: 0 };
const slugs = { event: '', draft: '', venue: '', draftVenue: '', organizer: '', draftOrganizer: '' };
const terms = { category: 0, tag: 0 };

beforeAll(async () => {
  h = await startHarness();
  const event = await createEvent(h.db, { title: 'Open Air', fields: { slug: 'open-air' } });
  const draft = await createEvent(h.db, { title: 'Hidden', status: 'draft', fields: { slug: 'hidden' } });
  const venue = await createVenue(h.db, { name: 'Hall', slug: 'hall' });
  const draftVenue = await createVenue(h.db, { name: 'Secret Hall', slug: 'secret-hall', status: 'draft' });
  const organizer = await createOrganizer(h.db, { name: 'Org', slug: 'org' });
  const draftOrganizer = await createOrganizer(h.db, {
    name: 'Secret Org',
    slug: 'secret-org',
    status: 'draft',
  });
  const category = await createTerm(h.db, 'tribe_events_cat', 'Music');
  const tag = await createTerm(h.db, 'post_tag', 'Outdoor');
  Object.assign(ids, {
    event: event.id,
    draft: draft.id,
    venue: venue.id,
    draftVenue: draftVenue.id,
    organizer: organizer.id,
    draftOrganizer: draftOrganizer.id,
  });
  Object.assign(slugs, {
    event: 'open-air',
    draft: 'hidden',
    venue: 'hall',
    draftVenue: 'secret-hall',
    organizer: 'org',
    draftOrganizer: 'secret-org',
  });
  Object.assign(terms, { category: category.id, tag: tag.id });
});

afterAll(() => h.close());

const gql = graphqlClient(() => h, { status: 200 });

const MISSING = 987_654;

/** Each lookup with a record it finds, one that does not exist and one anonymous viewers may not read. */
const lookups = () => [
  { field: 'event', found: `id: ${ids.event}`, missing: `id: ${MISSING}`, hidden: `id: ${ids.draft}` },
  {
    field: 'eventBySlug',
    found: `slug: "${slugs.event}"`,
    missing: 'slug: "no-such-event"',
    hidden: `slug: "${slugs.draft}"`,
  },
  { field: 'venue', found: `id: ${ids.venue}`, missing: `id: ${MISSING}`, hidden: `id: ${ids.draftVenue}` },
  {
    field: 'venueBySlug',
    found: `slug: "${slugs.venue}"`,
    missing: 'slug: "no-such-venue"',
    hidden: `slug: "${slugs.draftVenue}"`,
  },
  {
    field: 'organizer',
    found: `id: ${ids.organizer}`,
    missing: `id: ${MISSING}`,
    hidden: `id: ${ids.draftOrganizer}`,
  },
  {
    field: 'organizerBySlug',
    found: `slug: "${slugs.organizer}"`,
    missing: 'slug: "no-such-organizer"',
    hidden: `slug: "${slugs.draftOrganizer}"`,
  },
  { field: 'category', found: `id: ${terms.category}`, missing: `id: ${MISSING}`, hidden: null },
  { field: 'tag', found: `id: ${terms.tag}`, missing: `id: ${MISSING}`, hidden: null },
];

describe('single lookups are nullable', () => {
  it('finds the record when it exists and is readable', async () => {
    for (const { field, found } of lookups()) {
      const body = await gql(`{ record: ${field}(${found}) { id: databaseId } }`);
      expect(body.errors, field).toBeUndefined();
      expect(body.data?.record?.id, field).toBeGreaterThan(0);
    }
  });

  it.each(['missing', 'hidden'] as const)(
    'answers null for a %s record, with an error entry, and keeps the sibling fields',
    async (kind) => {
      for (const lookup of lookups()) {
        const args = lookup[kind];
        if (args === null) continue;
        const body = await gql(
          `{ record: ${lookup.field}(${args}) { id: databaseId } sibling: event(id: ${ids.event}) { title } }`,
        );
        expect(body.data, lookup.field).toEqual({ record: null, sibling: { title: 'Open Air' } });
        expect(body.errors, lookup.field).toHaveLength(1);
        expect(body.errors![0]!.path, lookup.field).toEqual(['record']);
        expect(body.errors![0]!.extensions?.code, lookup.field).toEqual(expect.any(String));
      }
    },
  );
});
