import { describe, expect, it } from 'vitest';
import { restRoutes } from '../../../rest-map/routes.js';
import type { RestField } from '../../../src/core/rest/route-table.js';
import { documentedBody } from '../../../src/core/rest/discovery/paths.js';
import { restSchema } from '../../../src/schema.js';
import { type BodyTable, parseBody, readBody } from '../../../src/core/rest/body-fields.js';
import { ORGANIZER_BODY, POST_PASSWORD_BODY, VENUE_BODY } from '../../../src/places/rest-body.js';
import { CATEGORY_BODY, TAG_BODY } from '../../../src/terms/rest-body.js';
import { EVENT_BODY } from '../../../src/events/rest-body.js';

// Every body field the REST API documents (namespace index, `/doc`) is one the route reads into its
// domain input: documentation and validation come from one table per resource.

/** A value of the field's first documented type, as a client following the documentation sends it. */
function sample(field: RestField): unknown {
  const type = Array.isArray(field.type) ? field.type[0] : field.type;
  if (type === 'integer' || type === 'number') return 1;
  if (type === 'boolean') return true;
  return 'text';
}

const BODIES: Array<[string, BodyTable<object>]> = [
  ['Mutation.tecCreateVenue', VENUE_BODY],
  ['Mutation.tecUpdateVenue', { ...VENUE_BODY, ...POST_PASSWORD_BODY }],
  ['Mutation.tecUpdateVenueBySlug', VENUE_BODY],
  ['Mutation.tecCreateOrganizer', ORGANIZER_BODY],
  ['Mutation.tecUpdateOrganizer', { ...ORGANIZER_BODY, ...POST_PASSWORD_BODY }],
  ['Mutation.tecUpdateOrganizerBySlug', ORGANIZER_BODY],
  ['Mutation.tecCreateCategory', CATEGORY_BODY],
  ['Mutation.tecUpdateCategory', CATEGORY_BODY],
  ['Mutation.tecCreateTag', TAG_BODY],
  ['Mutation.tecUpdateTag', TAG_BODY],
];

describe('REST body tables', () => {
  it.each(BODIES)('%s documents exactly the fields it reads', (operation, table) => {
    const route = restRoutes.find((candidate) => candidate.operation === operation);
    expect(route?.bodyArgument).toBeDefined();
    expect(Object.keys(documentedBody(restSchema, route!))).toEqual(Object.keys(table));
  });

  it('documents the event body on every event write, its password on the by-id routes only', () => {
    const documented = (operation: string) =>
      Object.keys(
        documentedBody(
          restSchema,
          restRoutes.find((route) => route.operation === operation)!,
        ),
      );
    const fields = Object.keys(EVENT_BODY);
    expect(fields).toContain('password');
    expect(documented('Mutation.tecCreateEvent')).toEqual(fields);
    expect(documented('Mutation.tecUpdateEvent')).toEqual(fields);
    expect(documented('Mutation.tecUpdateEventBySlug')).toEqual(fields.filter((name) => name !== 'password'));
  });

  it.each(BODIES)('%s reads every documented field into its domain field', (operation, table) => {
    const route = restRoutes.find((candidate) => candidate.operation === operation)!;
    for (const [param, field] of Object.entries(documentedBody(restSchema, route))) {
      const { input, unreadable } = readBody(table, parseBody(table, { [param]: sample(field) }));
      expect(unreadable, `${operation} ${param}`).toEqual([]);
      expect(Object.keys(input), `${operation} ${param}`).toEqual([table[param]!.to]);
    }
  });

  it('ignores parameters no table declares, and names the ones it cannot read', () => {
    const read = <Domain>(table: BodyTable<Domain>, body: Record<string, unknown>) =>
      readBody(table, parseBody(table, body));
    expect(read(VENUE_BODY, { venue: 'Hall', unknown: 1, show_map: 'yes', geo_lat: '' })).toEqual({
      input: { name: 'Hall', showMap: true, geoLat: null },
      unreadable: [],
    });
    expect(read(VENUE_BODY, { city: ['array'], author: 'abc', image: true }).unreadable).toEqual([
      'authorId',
      'city',
      'image',
    ]);
    expect(read(CATEGORY_BODY, { name: 12, parent: null })).toEqual({
      input: { parentId: null },
      unreadable: ['name'],
    });
  });
});
