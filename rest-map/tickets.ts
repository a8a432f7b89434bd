import type { RestRoute } from '../src/core/rest/route-table.js';

// The tickets route table (`/calendar/tickets/v1`), Event Tickets' REST API v1 paths where it has them.
// No route declares `dependsOn`: their anonymous answers are dropped by any committed write, which a
// reservation is (it names its event).

const ARCHIVE_HEADERS = { 'X-ET-TOTAL': 'total', 'X-ET-TOTAL-PAGES': 'total_pages' };

/**
 * A reservation's secret travels in a header, never in the URL: a URL is written into access logs,
 * proxies' logs, browser histories and `Referer` headers. The link in an e-mail names a page whose
 * script reads the token from the link's fragment (never sent to a server) and sends it here.
 */
const TOKEN_HEADER = { token: 'X-RSVP-Token' };

const CSV = {
  contentType: 'text/csv; charset=utf-8',
  bodyKey: 'csv',
  filenameKey: 'filename',
  disposition: 'attachment' as const,
};

export const ticketRoutes: RestRoute[] = [
  {
    methods: ['GET'],
    path: '/tickets',
    operation: 'Query.tecTickets',
    headers: ARCHIVE_HEADERS,
    description: 'Tickets and RSVPs of the events you may see, with their availability',
  },
  {
    methods: ['GET'],
    path: '/tickets/:id',
    operation: 'Query.tecTicket',
    description: 'One ticket or RSVP with its availability',
  },
  {
    methods: ['GET'],
    path: '/attendees',
    operation: 'Query.tecAttendees',
    headers: ARCHIVE_HEADERS,
    description: 'Attendees in arrival order (editors and administrators)',
  },
  {
    methods: ['POST'],
    path: '/attendees',
    operation: 'Mutation.tecRsvp',
    status: 201,
    bodyArgument: 'input',
    locationFrom: 'rest_url',
    description:
      'Reserves places (an RSVP); the answer holds the token that changes or cancels it, shown once',
  },
  {
    methods: ['GET'],
    path: '/attendees.csv',
    operation: 'Query.tecAttendeesCsv',
    document: CSV,
    description:
      'An event’s attendees as CSV (text/csv), in arrival order: id, ticket type, name, e-mail, guests, status, check-in code, created (editors and administrators)',
  },
  {
    methods: ['GET'],
    path: '/attendees/:id',
    operation: 'Query.tecAttendee',
    description: 'One attendee (editors and administrators)',
  },
  {
    methods: ['POST'],
    path: '/qr',
    operation: 'Mutation.tecCheckIn',
    bodyArgument: 'input',
    description: 'Checks an attendee in by the security code of their ticket (editors and administrators)',
  },
  {
    methods: ['GET'],
    path: '/rsvp',
    operation: 'Query.tecRsvpByToken',
    headerArguments: TOKEN_HEADER,
    description: 'Your reservation, by its token (header X-RSVP-Token)',
  },
  {
    methods: ['POST', 'PUT', 'PATCH'],
    path: '/rsvp',
    operation: 'Mutation.tecUpdateRsvp',
    headerArguments: TOKEN_HEADER,
    bodyArgument: 'input',
    description: 'Changes your reservation by its token: its name, its places, or whether you come',
  },
  {
    methods: ['DELETE'],
    path: '/rsvp',
    operation: 'Mutation.tecCancelRsvp',
    headerArguments: TOKEN_HEADER,
    description: 'Cancels your reservation by its token; its places go to the waitlist',
  },
  {
    methods: ['POST'],
    path: '/rsvp/erase',
    operation: 'Mutation.tecEraseRsvp',
    headerArguments: TOKEN_HEADER,
    description: 'Removes your name and e-mail from your reservation (its token stops working)',
  },
];
