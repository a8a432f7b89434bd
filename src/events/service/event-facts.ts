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

/** The ids an event links to, in link order. */
export interface EventLinks {
  terms: readonly number[];
  venues: readonly number[];
  organizers: readonly number[];
}

const LINK_FACTS: Record<keyof EventLinks, EventFact> = {
  terms: 'terms',
  venues: 'venues',
  organizers: 'organizers',
};

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

const differ = (a: unknown, b: unknown) =>
  a instanceof Date && b instanceof Date ? a.getTime() !== b.getTime() : a !== b;
const sameIds = (a: readonly number[], b: readonly number[]) =>
  a.length === b.length && a.every((id, index) => id === b[index]);

/**
 * The facts that differ between two states of one event: its columns (one a row did not read counts
 * as changed) and its links. `shown`: the changed columns, when each is `SHOWN_ONLY` and no link changed.
 */
export function changedFacts(
  before: { row: object; links: EventLinks },
  after: { row: object; links: EventLinks },
): { facts: EventFact[]; shown?: string[] } {
  const rowBefore = before.row as Readonly<Record<string, unknown>>;
  const rowAfter = after.row as Readonly<Record<string, unknown>>;
  const facts = new Set<EventFact>();
  const columns: string[] = [];
  for (const [column, fact] of Object.entries(COLUMN_FACTS)) {
    const [was, is] = [rowBefore[column], rowAfter[column]];
    if (was !== undefined && is !== undefined && !differ(was, is)) continue;
    columns.push(column);
    if (fact) facts.add(fact);
  }
  let relinked = false;
  for (const [link, fact] of Object.entries(LINK_FACTS) as Array<[keyof EventLinks, EventFact]>) {
    if (sameIds(before.links[link], after.links[link])) continue;
    facts.add(fact);
    relinked = true;
  }
  const shownOnly = !relinked && columns.every((column) => SHOWN_ONLY.has(column));
  return { facts: [...facts], ...(shownOnly && { shown: columns }) };
}
