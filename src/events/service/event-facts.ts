import type { EventFact } from '../../core/cache/dependencies.js';
import type { Prisma } from '../../generated/sqlite/client.js';
import { DECLARED_NAMES, type DeclaredName, declaration } from '../model/event-fields.js';

// Which fact of an event (`core/cache/dependencies.ts`) each of its columns and links is, so that a write
// says what it may have changed and the cached lists it cannot affect stay. Every column is listed
// (the compiler checks it): a new column is a decision, not a silent "nothing changed". `null`: no
// list reads it (it changes only the answers showing the event).

const HAND_FACTS: Record<Exclude<Prisma.EventScalarFieldEnum, DeclaredName>, EventFact | null> = {
  id: null,
  slug: null,
  desiredSlug: null,
  title: 'text',
  description: 'text',
  excerpt: 'text',
  status: 'status',
  // A signed-in author's own drafts are in their lists.
  authorId: 'status',
  password: 'password',
  publishedAt: 'order',
  postDate: 'order',
  modifiedAt: null,
  startsAt: 'span',
  endsAt: 'span',
  localStart: 'span',
  localEnd: 'span',
  timezone: 'span',
  allDay: 'span',
  cost: null,
  currencySymbol: null,
  currencyCode: null,
  currencyPosition: null,
  website: null,
  postParentId: 'parent',
  imageId: null,
  eventStatus: 'eventStatus',
  eventStatusReason: null,
  revision: null,
  // A series' lines and an occurrence's slot: its occurrences are written (and announced) one by one.
  recurrence: null,
  originalStart: null,
  isException: null,
  // Whether a series' first event is in lists at all (its start excluded from its set).
  startExcluded: 'hidden',
};

/** A declared field's fact is its declaration's (`cache.fact`). */
const COLUMN_FACTS: Record<Prisma.EventScalarFieldEnum, EventFact | null> = {
  ...HAND_FACTS,
  ...(Object.fromEntries(DECLARED_NAMES.map((name) => [name, declaration(name).cache.fact])) as Record<
    DeclaredName,
    EventFact | null
  >),
};

const LINK_FACTS = {
  categories: 'terms',
  tags: 'terms',
  venues: 'venues',
  organizers: 'organizers',
} as const;

/**
 * The columns nothing reads but the fields showing them: no list's membership or order, no lookup, no
 * rule of who may see what (the `text` of a search is its lists' to judge). Every write also moves
 * `modifiedAt` and `revision`.
 */
const SHOWN_ONLY: ReadonlySet<string> = new Set<Prisma.EventScalarFieldEnum>([
  'title',
  'description',
  'excerpt',
  'cost',
  'currencySymbol',
  'currencyCode',
  'currencyPosition',
  'website',
  'eventStatusReason',
  'modifiedAt',
  'revision',
  ...DECLARED_NAMES.filter((name) => declaration(name).cache.shownOnly),
]);

/**
 * The columns a write of these columns and these links changed, when they are all `SHOWN_ONLY`
 * (`EventMove.shown`); undefined otherwise.
 */
export function shownColumnsOnly(columns: Iterable<string>, links: Iterable<string>): string[] | undefined {
  if ([...links].length) return undefined;
  const written = [...columns];
  return written.every((column) => SHOWN_ONLY.has(column)) ? written : undefined;
}

/** The facts a write of these columns and these links (those it replaces) may change. */
export function factsWritten(columns: Iterable<string>, links: Iterable<string> = []): EventFact[] {
  const facts = new Set<EventFact>();
  for (const column of columns) {
    const fact = COLUMN_FACTS[column as Prisma.EventScalarFieldEnum];
    if (fact === undefined) return ALL_FACTS;
    if (fact) facts.add(fact);
  }
  for (const link of links) {
    const fact = LINK_FACTS[link as keyof typeof LINK_FACTS];
    if (fact) facts.add(fact);
  }
  return [...facts];
}

const ALL_FACTS = [...new Set(Object.values(COLUMN_FACTS).filter((fact) => fact !== null))].concat(
  Object.values(LINK_FACTS),
) as EventFact[];
