import { getNamedType, isLeafType, isObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicSchema } from '../../../../src/schema.js';
import { type Harness, startHarness } from '../../../helpers/harness.js';
import { cachedAndFresh } from '../../../helpers/cached-app.js';
import { createEvent, createOrganizer, createTerm, createVenue } from '../../../helpers/fixtures.js';
import { type Credentials, withRoles } from '../../../helpers/users.js';

// A GraphQL answer showing an event depends only on the columns its fields show, where each field says
// which (`showing`, core/graphql/schema/common.ts; a field exposing a column says it itself): a write of a column
// that only the fields showing it read (`EventMove.shown`) keeps the answers of the other fields. This
// walks every field of `Event` and `EventContent` against every such column a client can write: after
// each write, every field's cached answer is the one an app without a cache gives. A field that shows a
// column without naming it would keep a stale answer here.

/** Sub-selections for the fields returning objects. */
const SELECTIONS: Record<string, string> = {
  EventCost: '{ formatted values currencySymbol currencyPosition }',
  Venue: '{ databaseId name }',
  Organizer: '{ databaseId name }',
  Category: '{ databaseId name count }',
  Tag: '{ databaseId name count }',
  Image: '{ url }',
  Author: '{ name }',
  Event: '{ databaseId }',
  RecurrencePattern: '{ __typename }',
};

/** Each writable column that only the fields showing it read, with the GraphQL input of each write. */
const COLUMN_WRITES: Array<[column: string, inputs: string[]]> = [
  ['title', ['title: "Renamed"', 'title: "Renamed again"']],
  ['description', ['description: "<p>New words</p>"', 'description: ""']],
  ['excerpt', ['excerpt: "In short"', 'excerpt: ""']],
  ['cost', ['cost: ["25"]', 'cost: ["0", "12"]']],
  ['website', ['website: "https://example.com/new"', 'website: ""']],
  ['showMap', ['showMap: false', 'showMap: true']],
  ['showMapLink', ['showMapLink: false', 'showMapLink: true']],
  ['eventStatusReason', ['eventStatusReason: "Weather"', 'eventStatusReason: ""']],
  ['onlineUrl', ['onlineUrl: "https://example.com/live"', 'onlineUrl: ""']],
];

/** One document per field of `Event` and per field of its `content`. */
function fieldDocuments(id: number): Map<string, string> {
  const documents = new Map<string, string>();
  const selection = (field: { name: string; type: Parameters<typeof getNamedType>[0] }) => {
    const type = getNamedType(field.type);
    if (!type || isLeafType(type)) return field.name;
    const sub = SELECTIONS[type.name];
    return sub ? `${field.name} ${sub}` : undefined;
  };
  for (const typeName of ['Event', 'EventContent']) {
    const type = publicSchema.getType(typeName);
    if (!isObjectType(type)) throw new Error(`${typeName} is no object type`);
    for (const field of Object.values(type.getFields())) {
      const selected = selection(field);
      if (!selected) continue;
      const inner = typeName === 'Event' ? selected : `content { ${selected} }`;
      documents.set(`${typeName}.${field.name}`, `{ event(id: ${id}) { ${inner} } }`);
    }
  }
  return documents;
}

let h: Harness;
let apps: ReturnType<typeof cachedAndFresh>;
let administrator: Credentials;
let eventId: number;

beforeAll(async () => {
  h = await startHarness();
  apps = cachedAndFresh(h);
  administrator = (await withRoles(h)).administrator;
  const venue = await createVenue(h.db);
  const organizer = await createOrganizer(h.db);
  const category = await createTerm(h.db, 'tribe_events_cat', 'Columns');
  eventId = (
    await createEvent(h.db, {
      start: '2035-04-04 18:00:00',
      venueIds: [venue.id],
      organizerIds: [organizer.id],
      termIds: [category.id],
    })
  ).id;
});
afterAll(() => h.close());

const ask = (app: typeof apps.cached, query: string) => app.post('/graphql').send({ query }).expect(200);

describe('GraphQL answers kept through writes of columns they do not show', () => {
  it('every field of an event shows what an app without a cache shows, after each write', async () => {
    const documents = fieldDocuments(eventId);
    expect(documents.size).toBeGreaterThan(40);
    let kept = 0;
    for (const [column, inputs] of COLUMN_WRITES)
      for (const input of inputs) {
        for (const query of documents.values()) await ask(apps.cached, query);
        const write = await apps.cached
          .post('/graphql')
          .auth(administrator.login, administrator.password)
          .send({ query: `mutation { updateEvent(id: ${eventId}, input: { ${input} }) { databaseId } }` });
        expect(write.body.errors, `${column}: ${write.text}`).toBeUndefined();
        for (const [field, query] of documents) {
          const answer = await ask(apps.cached, query);
          const expected = await ask(apps.fresh, query);
          expect(answer.text, `${field} after a write of ${column} (${input})`).toBe(expected.text);
          if (answer.headers['x-cache'] === 'hit') kept++;
        }
      }
    // Most fields show none of the column written: their answers stayed.
    expect(kept).toBeGreaterThan(documents.size * COLUMN_WRITES.length);
    // Every field's document asked again after each write, in sequence: 26 s alone on a loaded machine.
  }, 90_000);
});
