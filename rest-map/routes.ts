import type { RestRoute } from './types.js';

export const API_NAMESPACE = 'calendar/events/v1';

const ARCHIVE_HEADERS = { 'X-TEC-Total': 'total', 'X-TEC-TotalPages': 'total_pages' };
const ARCHIVE_LINKS = ['next_rest_url', 'previous_rest_url'];

/** The route table of `../shared/spec/seed-spec.md`; routes land here as their issues are done. */
export const restRoutes: RestRoute[] = [
  {
    methods: ['GET'],
    path: '/events',
    operation: 'Query.tecEvents',
    headers: ARCHIVE_HEADERS,
    omitWhenNull: ARCHIVE_LINKS,
    description: 'Upcoming events, filtered and paged',
  },
  {
    methods: ['GET'],
    path: '/events/:id',
    operation: 'Query.tecEvent',
    description: 'One event, with its JSON-LD',
  },
];
