import type { RestRoute } from '../src/core/rest/route-table.js';

const ARCHIVE_HEADERS = { 'X-TEC-Total': 'total', 'X-TEC-TotalPages': 'total_pages' };
const ARCHIVE_LINKS = ['next_rest_url', 'previous_rest_url'];
/** A password-protected event's single representation has no `json_ld` key (as the reference). */
const SINGLE_EVENT_NULLS = ['json_ld'];
const ICALENDAR = {
  contentType: 'text/calendar; charset=utf-8',
  bodyKey: 'calendar',
  filenameKey: 'filename',
};

/**
 * An event's answer shows its venues and organizers only while the viewer may see them: one turning
 * public or private changes answers that did not show it, so any write to them drops event answers.
 * Terms are always shown: the answers showing one are dropped by its writes alone.
 */
const EVENT_LINKED_FAMILIES: Array<'venue' | 'organizer'> = ['venue', 'organizer'];

/** The REST route table (docs/reference.md §S4). */
export const restRoutes: RestRoute[] = [
  {
    methods: ['GET'],
    path: '/events',
    operation: 'Query.tecEvents',
    headers: ARCHIVE_HEADERS,
    omitWhenNull: ARCHIVE_LINKS,
    dependsOn: { families: EVENT_LINKED_FAMILIES },
    rendersRows: true,
    description: 'Upcoming events, filtered and paged',
  },
  // iCalendar feeds: the list (same filters, defaults and visibility, `limit` instead of paging) and
  // one event; the reference's front-end form `?ical=1` reaches them too. Declared before `/events/:id`,
  // which would otherwise take `/events/1.ics`.
  {
    methods: ['GET'],
    path: '/events.ics',
    operation: 'Query.tecEventsFeed',
    document: ICALENDAR,
    alsoAt: { path: '/events', flag: 'ical' },
    description: 'The upcoming events of a list query as an iCalendar feed (text/calendar)',
  },
  {
    methods: ['GET'],
    path: '/events/:id.ics',
    operation: 'Query.tecEventFeed',
    document: ICALENDAR,
    alsoAt: { path: '/events/:id', flag: 'ical' },
    description: 'One event as an iCalendar file (text/calendar)',
  },
  {
    methods: ['GET'],
    path: '/events/by-slug/:slug.ics',
    operation: 'Query.tecEventBySlugFeed',
    document: ICALENDAR,
    alsoAt: { path: '/events/by-slug/:slug', flag: 'ical' },
    description: 'One event by its slug as an iCalendar file (text/calendar)',
  },
  {
    methods: ['GET'],
    path: '/events/:id',
    operation: 'Query.tecEvent',
    omitWhenNull: SINGLE_EVENT_NULLS,
    dependsOn: { families: EVENT_LINKED_FAMILIES },
    description: 'One event, with its JSON-LD',
  },
  {
    methods: ['GET'],
    path: '/events/by-slug/:slug',
    operation: 'Query.tecEventBySlug',
    omitWhenNull: SINGLE_EVENT_NULLS,
    dependsOn: { families: EVENT_LINKED_FAMILIES },
    description: 'One event by its slug, with its JSON-LD',
  },
  // Event writes (docs/reference.md §S4.2): create, update and delete by id or slug; DELETE trashes unless
  // `force=true` (D4).
  {
    methods: ['POST'],
    path: '/events',
    operation: 'Mutation.tecCreateEvent',
    omitWhenNull: SINGLE_EVENT_NULLS,
    status: 201,
    bodyArgument: 'input',
    locationFrom: 'rest_url',
    description: 'Creates an event (contributors: as a draft or pending)',
  },
  {
    methods: ['POST', 'PUT', 'PATCH'],
    path: '/events/:id',
    operation: 'Mutation.tecUpdateEvent',
    omitWhenNull: SINGLE_EVENT_NULLS,
    bodyArgument: 'input',
    bodyOptional: true,
    description: 'Updates an event; only the fields sent change',
  },
  {
    methods: ['DELETE'],
    path: '/events/:id',
    operation: 'Mutation.tecDeleteEvent',
    omitWhenNull: SINGLE_EVENT_NULLS,
    description: 'Moves the event to the trash and returns it; force=true deletes it for good (editors)',
  },
  {
    methods: ['POST', 'PUT', 'PATCH'],
    path: '/events/by-slug/:slug',
    operation: 'Mutation.tecUpdateEventBySlug',
    omitWhenNull: SINGLE_EVENT_NULLS,
    bodyArgument: 'input',
    bodyOptional: true,
    bodyOmits: ['password'],
    description: 'Updates an event by its slug (`slug` renames it); only the fields sent change',
  },
  {
    methods: ['DELETE'],
    path: '/events/by-slug/:slug',
    operation: 'Mutation.tecDeleteEventBySlug',
    omitWhenNull: SINGLE_EVENT_NULLS,
    description: 'Moves the event to the trash and returns it; force=true deletes it for good (editors)',
  },
  // Venues and organizers (docs/reference.md §S4.3–S4.4): by id or slug; DELETE trashes unless `force=true`
  // (D4).
  ...linkedPostRoutes('venues', 'Venue', 'venue'),
  ...linkedPostRoutes('organizers', 'Organizer', 'organizer'),
  // Categories and tags (docs/reference.md §S4.5–S4.6): by numeric term id only; DELETE is permanent.
  ...termRoutes('categories', 'Category', 'Categories'),
  ...termRoutes('tags', 'Tag', 'Tags'),
  // Incremental sync: what changed since a token (410 `sync_token_expired` past the retention window).
  {
    methods: ['GET'],
    path: '/changes',
    operation: 'Query.tecChanges',
    description:
      'Records created or updated and ids deleted since the sync token `since`, per type, with the `next` token',
  },
];

function termRoutes(path: string, one: string, many: string): RestRoute[] {
  const kind = one.toLowerCase();
  return [
    {
      methods: ['GET'],
      path: `/${path}`,
      operation: `Query.tec${many}`,
      headers: ARCHIVE_HEADERS,
      omitWhenNull: ARCHIVE_LINKS,
      nonEmpty: ['search', 'order', 'orderby', 'slug'],
      // Which terms a list holds, and their order, move with their counts (`hide_empty`, `orderby=count`).
      dependsOn: { families: ['term', 'term-counts'] },
      description: `Event ${many.toLowerCase()}, filtered and paged (empty ones hidden by default)`,
    },
    {
      methods: ['POST'],
      path: `/${path}`,
      operation: `Mutation.tecCreate${one}`,
      status: 201,
      bodyArgument: 'input',
      locationFrom: 'urls.self',
      description: `Creates an event ${kind} (editors and administrators)`,
    },
    {
      methods: ['GET'],
      path: `/${path}/:id`,
      operation: `Query.tec${one}`,
      dependsOn: { families: [] },
      description: `One event ${kind}`,
    },
    {
      methods: ['POST', 'PUT', 'PATCH'],
      path: `/${path}/:id`,
      operation: `Mutation.tecUpdate${one}`,
      bodyArgument: 'input',
      bodyOptional: true,
      description: `Updates an event ${kind} (editors and administrators)`,
    },
    {
      methods: ['DELETE'],
      path: `/${path}/:id`,
      operation: `Mutation.tecDelete${one}`,
      description: `Deletes an event ${kind} for good and returns it (editors and administrators)`,
    },
  ];
}

function linkedPostRoutes(path: string, one: string, kind: 'venue' | 'organizer'): RestRoute[] {
  const many = `${one}s`;
  const removal = `Moves the ${kind} to the trash and returns it (unlinked from its events); force=true deletes it for good (editors)`;
  return [
    {
      methods: ['GET'],
      path: `/${path}`,
      operation: `Query.tec${many}`,
      headers: ARCHIVE_HEADERS,
      omitWhenNull: ARCHIVE_LINKS,
      dependsOn: { families: [kind] },
      description: `${many}, filtered and paged, newest first`,
    },
    {
      methods: ['POST'],
      path: `/${path}`,
      operation: `Mutation.tecCreate${one}`,
      status: 201,
      bodyArgument: 'input',
      // A post's own password is taken by the by-id update only.
      bodyOmits: ['password'],
      description: `Creates a ${kind}, or returns the existing one with the same name (and description, when given)`,
    },
    {
      methods: ['GET'],
      path: `/${path}/:id`,
      operation: `Query.tec${one}`,
      dependsOn: { families: [] },
      description: `One ${kind}, with its JSON-LD`,
    },
    {
      methods: ['POST', 'PUT', 'PATCH'],
      path: `/${path}/:id`,
      operation: `Mutation.tecUpdate${one}`,
      bodyArgument: 'input',
      bodyOptional: true,
      description: `Updates a ${kind}; empty strings clear fields`,
    },
    {
      methods: ['DELETE'],
      path: `/${path}/:id`,
      operation: `Mutation.tecDelete${one}`,
      description: removal,
    },
    {
      methods: ['GET'],
      path: `/${path}/by-slug/:slug`,
      operation: `Query.tec${one}BySlug`,
      dependsOn: { families: [] },
      description: `One ${kind} by its slug, with its JSON-LD`,
    },
    {
      methods: ['POST', 'PUT', 'PATCH'],
      path: `/${path}/by-slug/:slug`,
      operation: `Mutation.tecUpdate${one}BySlug`,
      bodyArgument: 'input',
      bodyOptional: true,
      bodyOmits: ['password'],
      description: `Updates a ${kind} by its slug; empty strings clear fields`,
    },
    {
      methods: ['DELETE'],
      path: `/${path}/by-slug/:slug`,
      operation: `Mutation.tecDelete${one}BySlug`,
      description: removal,
    },
  ];
}
