import type { GraphQLResolveInfo } from 'graphql';
import { builder, REST } from '../core/graphql/schema/builder.js';
import {
  eventJsonLd,
  presentEmbeddedTerm,
  presentImage,
  presentOrganizer,
  presentVenue,
  type Representation,
  texturize,
} from './rest-present.js';
import { dateDetails, postDateOf, wallClock, zoneAbbreviation } from '../core/rules/dates.js';
import { costValues, formatCost } from '../core/graphql/cost.js';
import { jsonShape } from '../core/rest/discovery/json-shapes.js';
import { IMAGE_OR_FALSE } from '../core/rest/discovery/wordpress-shapes.js';
import {
  CUSTOM_FIELDS,
  EVENT_ORGANIZERS,
  EVENT_TERMS,
  EVENT_VENUE,
  TEC_EVENT_JSON_LD,
} from './rest-doc-shapes.js';
import { RECORD_VERSION_KEY } from '../core/rest/route-table.js';
import { recordVersion } from '../core/rules/versions.js';
import { globalId, permalink } from '../core/rules/urls.js';
import { contentWithheld, passwordHides, readableLinks } from '../core/rules/visibility.js';
import { type DeclaredName, type FieldDeclaration, declaredEntries, placed } from './model/event-fields.js';
import type { Event, Media, Organizer, Term, Venue } from '../generated/sqlite/client.js';
import type { SiteUrls } from '../core/rules/urls.js';
import { canRead } from '../core/rules/permissions.js';
import type { Context } from '../core/context/context.js';
import { seriesLines } from './series/series-place.js';

// The event as The Events Calendar's REST API v1 returns it (docs/reference.md §1.1): snake_case keys in the
// reference's order. Fields resolve from the same Prisma selection as the public `Event` type. The routes
// answering with it are `rest-schema.ts`; other rooms add to it here (`TecEventFields`, `addJsonLdPart`).

const DateDetails = builder.objectRef<ReturnType<typeof dateDetails>>('TecDateDetails').implement({
  ...REST,
  fields: (t) => ({
    year: t.exposeString('year'),
    month: t.exposeString('month'),
    day: t.exposeString('day'),
    hour: t.exposeString('hour'),
    minutes: t.exposeString('minutes'),
    seconds: t.exposeString('seconds'),
  }),
});

interface CostDetailsShape {
  currency_symbol: string;
  currency_code: string;
  currency_position: string;
  values: string[];
}

const CostDetails = builder.objectRef<CostDetailsShape>('TecCostDetails').implement({
  ...REST,
  fields: (t) => ({
    currency_symbol: t.exposeString('currency_symbol'),
    currency_code: t.exposeString('currency_code'),
    currency_position: t.exposeString('currency_position'),
    values: t.exposeStringList('values'),
  }),
});

const linkedRecords = {
  venues: { orderBy: { position: 'asc' }, include: { venue: { include: { image: true } } } },
  organizers: { orderBy: { position: 'asc' }, include: { organizer: { include: { image: true } } } },
} as const;

/** Embedded venues and organizers carry their own `json_ld` only inside a single event. */
function representationOf(info: GraphQLResolveInfo): Representation {
  return info.parentType.name === 'TecSingleEvent' ? 'single' : 'list';
}

/** What every REST event reads: the shape (`eventShape`) is made of the event and all of these. */
const SHAPE_INCLUDE = {
  image: true,
  terms: { orderBy: { position: 'asc' }, include: { term: true } },
  ...linkedRecords,
} as const;

/** An event as the REST shape reads it: its row, its verdict, and the records it embeds. */
type ShapedRow = Event & {
  contentWithheld?: boolean;
  image: Media | null;
  terms: Array<{ term: Term }>;
  venues: Array<{ venue: Venue & { image: Media | null } }>;
  organizers: Array<{ organizer: Organizer & { image: Media | null } }>;
};

/**
 * The computed keys of the REST event, in one pure function of its inputs: the rows (the event, its
 * image, venues, organizers and terms), the viewer's verdicts on them (the event's content withheld or
 * not, each linked record readable or not and scrubbed or not), the site's addresses and zone, and the
 * representation. `shapeKey` spells every one of those inputs; what is not here is read from the row
 * by the field itself (flags, declared fields, ids).
 */
function eventShape(e: ShapedRow, ctx: Context, as: Representation) {
  const zone = ctx.config.siteTimezone;
  const urls = ctx.urls;
  const withheld = contentWithheld(e);
  const localStart = wallClock(e.startsAt, e.timezone);
  const localEnd = wallClock(e.endsAt, e.timezone);
  const utcStart = wallClock(e.startsAt, 'UTC');
  const utcEnd = wallClock(e.endsAt, 'UTC');
  const url = permalink(urls, 'event', e);
  const venues = readableLinks(
    ctx.viewer,
    e.venues.map((link) => link.venue),
  );
  const organizers = readableLinks(
    ctx.viewer,
    e.organizers.map((link) => link.organizer),
  );
  const shownVenues = venues.map((venue) => presentVenue(venue, ctx, as));
  return {
    global_id: globalId(urls, e.id),
    global_id_lineage: [globalId(urls, e.id)],
    date: postDateOf(e, zone),
    date_utc: wallClock(e.publishedAt, 'UTC'),
    modified: wallClock(e.modifiedAt, zone),
    modified_utc: wallClock(e.modifiedAt, 'UTC'),
    url,
    rest_url: `${urls.api}/events/${e.id}`,
    title: texturize(e.title),
    description: withheld ? '' : texturize(e.description),
    excerpt: withheld ? '' : texturize(e.excerpt),
    image: withheld ? false : presentImage(e.image),
    start_date: localStart,
    start_date_details: dateDetails(localStart),
    end_date: localEnd,
    end_date_details: dateDetails(localEnd),
    utc_start_date: utcStart,
    utc_start_date_details: dateDetails(utcStart),
    utc_end_date: utcEnd,
    utc_end_date_details: dateDetails(utcEnd),
    timezone_abbr: zoneAbbreviation(e.startsAt, e.timezone),
    cost: withheld ? '' : formatCost(e),
    cost_details: withheld
      ? { currency_symbol: '', currency_code: '', currency_position: '', values: [] }
      : {
          currency_symbol: e.currencySymbol,
          currency_code: e.currencyCode,
          currency_position: e.currencyPosition,
          values: costValues(e.cost),
        },
    website: withheld ? '' : e.website || url,
    categories: withheld ? [] : embeddedTerms(e.terms, 'tribe_events_cat', urls),
    tags: withheld ? [] : embeddedTerms(e.terms, 'post_tag', urls),
    venue: withheld ? [] : shownVenues.length === 1 ? shownVenues[0] : shownVenues,
    organizer: withheld ? [] : organizers.map((organizer) => presentOrganizer(organizer, ctx, as)),
    recurrence: seriesLines(e),
    // A password-protected event has no JSON-LD, even for whoever gave the password (as the reference);
    // nor has a series' first event whose start its set excludes: it does not happen then.
    json_ld:
      as === 'single' && !e.password && !e.startExcluded ? eventJsonLd(e, venues, organizers, urls) : null,
  };
}

type EventShape = ReturnType<typeof eventShape>;

/**
 * Every input of `eventShape`, spelled: the versions of the rows (a post's `modifiedAt` moves on every
 * write; a term's version is its own fields, its count beside it; media rows never change), which
 * records the event links (a deleted venue drops its link without touching the event), the viewer's
 * verdicts, the addresses (the language segment is part of them) and the zone.
 */
function shapeKey(e: ShapedRow, ctx: Context, as: Representation): string {
  const viewer = ctx.viewer;
  const verdicts = (post: Venue | Organizer) =>
    `${post.id}.${post.modifiedAt.getTime()}.${canRead(viewer, post) ? 1 : 0}${passwordHides(viewer, post) ? 1 : 0}`;
  return [
    as,
    ctx.urls.site,
    ctx.urls.globalIdBase,
    ctx.config.siteTimezone,
    e.id,
    e.modifiedAt.getTime(),
    contentWithheld(e) ? 1 : 0,
    e.imageId ?? '',
    e.venues.map((link) => verdicts(link.venue)).join(','),
    e.organizers.map((link) => verdicts(link.organizer)).join(','),
    e.terms.map(({ term }) => `${term.id}.${term.eventCount}.${recordVersion(term)}`).join(','),
  ].join('|');
}

/** The shapes made for this request's rows (each field reads one key of it). */
const shapesOfRows = new WeakMap<object, Partial<Record<Representation, EventShape>>>();

/** A field's resolver: its key of the event's shape, made once per row and kept across requests. */
const shaped =
  <K extends keyof EventShape>(key: K) =>
  (e: object, _args: unknown, ctx: Context, info: GraphQLResolveInfo): EventShape[K] => {
    const row = e as ShapedRow;
    const as = representationOf(info);
    let shapes = shapesOfRows.get(row);
    if (!shapes) shapesOfRows.set(row, (shapes = {}));
    let shape = shapes[as];
    if (!shape) {
      const make = () => eventShape(row, ctx, as);
      shape = shapes[as] = ctx.shapes ? ctx.shapes.shaped(shapeKey(row, ctx, as), make) : make();
    }
    return shape[key];
  };

/** An event as the REST shape reads it, for what a room adds to it. */
type TecEventRow = ShapedRow;

/**
 * What a room adds to a single event's JSON-LD, as Event Tickets filters TEC's
 * (`tribe_json_ld_event_object`): keys replacing or following the shape's (the tickets' `offers`).
 * It reads what `shapeKey` does not spell, so it runs for each request, after the kept shape.
 */
type JsonLdPart = (
  event: TecEventRow,
  jsonLd: Readonly<Record<string, unknown>>,
  ctx: Context,
) => Promise<Record<string, unknown> | undefined>;

const jsonLdParts: JsonLdPart[] = [];

/** Registers a room's part of the JSON-LD (at schema build time, once). */
export function addJsonLdPart(part: JsonLdPart): void {
  jsonLdParts.push(part);
}

async function jsonLdOf(e: object, ctx: Context, info: GraphQLResolveInfo) {
  const shapedLd = shaped('json_ld')(e, undefined, ctx, info);
  if (!shapedLd) return shapedLd;
  let jsonLd: Record<string, unknown> = shapedLd;
  for (const part of jsonLdParts) {
    const added = await part(e as ShapedRow, jsonLd, ctx);
    // A key the shape has keeps its place (JSON-LD `offers` stays where TEC puts it).
    if (added) jsonLd = { ...jsonLd, ...added };
  }
  return jsonLd;
}

/**
 * The keys shared by the list and single representations (the single one adds `json_ld`); a room
 * adds its own after them (the tickets' `ticketed` and `tickets`, `src/tickets/event-shape.ts`).
 */
export const TecEventFields = builder.prismaInterface('Event', {
  variant: 'TecEventFields',
  ...REST,
  fields: (t) => {
    // Blanked (null) in lists for a password-protected event without its password (docs/reference.md §4.3).
    const flag = (key: 'allDay' | 'showMap' | 'showMapLink' | 'hideFromListings' | 'sticky' | 'featured') =>
      t.boolean({ nullable: true, resolve: (e) => (contentWithheld(e) ? null : e[key]) });
    // A declared field (`events/model/event-fields.ts`) as the reference shows its kind: blanked when withheld.
    const declared = (name: DeclaredName, field: FieldDeclaration) => {
      const blank = (e: Parameters<typeof contentWithheld>[0]) => field.withheld && contentWithheld(e);
      return field.kind === 'flag'
        ? t.boolean({ nullable: true, resolve: (e) => (blank(e) ? null : (e[name] as boolean)) })
        : t.string({ resolve: (e) => (blank(e) ? '' : String(e[name])) });
    };
    return placed(
      {
        id: t.exposeInt('id'),
        global_id: t.string({ resolve: shaped('global_id') }),
        global_id_lineage: t.stringList({ resolve: shaped('global_id_lineage') }),
        author: t.string({ resolve: (e) => String(e.authorId ?? 0) }),
        status: t.exposeString('status'),
        date: t.string({ resolve: shaped('date') }),
        date_utc: t.string({ resolve: shaped('date_utc') }),
        modified: t.string({ resolve: shaped('modified') }),
        modified_utc: t.string({ resolve: shaped('modified_utc') }),
        url: t.string({ resolve: shaped('url') }),
        rest_url: t.string({ resolve: shaped('rest_url') }),
        // Rendered as WordPress renders them (wptexturize); GraphQL keeps the raw text.
        title: t.string({ resolve: shaped('title') }),
        description: t.string({ resolve: shaped('description') }),
        excerpt: t.string({ resolve: shaped('excerpt') }),
        slug: t.string({ resolve: (e) => e.slug ?? '' }),
        image: t.field({
          type: 'JSON',
          extensions: jsonShape(IMAGE_OR_FALSE),
          select: { image: true },
          resolve: shaped('image'),
        }),
        all_day: flag('allDay'),
        start_date: t.string({ resolve: shaped('start_date') }),
        start_date_details: t.field({ type: DateDetails, resolve: shaped('start_date_details') }),
        end_date: t.string({ resolve: shaped('end_date') }),
        end_date_details: t.field({ type: DateDetails, resolve: shaped('end_date_details') }),
        utc_start_date: t.string({ resolve: shaped('utc_start_date') }),
        utc_start_date_details: t.field({
          type: DateDetails,
          resolve: shaped('utc_start_date_details'),
        }),
        utc_end_date: t.string({ resolve: shaped('utc_end_date') }),
        utc_end_date_details: t.field({ type: DateDetails, resolve: shaped('utc_end_date_details') }),
        timezone: t.exposeString('timezone'),
        timezone_abbr: t.string({ resolve: shaped('timezone_abbr') }),
        cost: t.string({ resolve: shaped('cost') }),
        cost_details: t.field({ type: CostDetails, resolve: shaped('cost_details') }),
        website: t.string({ resolve: shaped('website') }),
        categories: t.field({
          type: 'JSON',
          extensions: jsonShape(EVENT_TERMS),
          select: { terms: { orderBy: { position: 'asc' }, include: { term: true } } },
          resolve: shaped('categories'),
        }),
        tags: t.field({
          type: 'JSON',
          extensions: jsonShape(EVENT_TERMS),
          select: { terms: { orderBy: { position: 'asc' }, include: { term: true } } },
          resolve: shaped('tags'),
        }),
        venue: t.field({
          type: 'JSON',
          description: 'One venue → object; several → array; none → []',
          extensions: jsonShape(EVENT_VENUE),
          select: { venues: linkedRecords.venues },
          resolve: shaped('venue'),
        }),
        organizer: t.field({
          type: 'JSON',
          extensions: jsonShape(EVENT_ORGANIZERS),
          select: { organizers: linkedRecords.organizers },
          resolve: shaped('organizer'),
        }),
        custom_fields: t.field({
          type: 'JSON',
          extensions: jsonShape(CUSTOM_FIELDS),
          resolve: () => [],
        }),
        // TEC's event status, after the reference's keys (its REST API v1 does not show them).
        event_status: t.exposeString('eventStatus'),
        event_status_reason: t.string({ resolve: (e) => (contentWithheld(e) ? '' : e.eventStatusReason) }),
        // Extensions for series (docs/reference/recurrence.md): TEC Pro's parent, Google's recurrence.
        post_parent: t.int({ resolve: (e) => e.postParentId ?? 0 }),
        recurrence: t.stringList({ resolve: shaped('recurrence') }),
      },
      declaredEntries('rest', declared),
    );
  },
});

/** Names compared regardless of case and accents; one collator, not one built per comparison. */
const byTermName = new Intl.Collator('en', { sensitivity: 'base' });

/** Term shape (a), in the order the event lists them; counts are stored on the term. */
/** By name, as WordPress's `wp_get_object_terms` returns them (not in the order they were linked). */
function embeddedTerms(links: Array<{ term: Term }>, taxonomy: string, urls: SiteUrls) {
  return links
    .map((link) => link.term)
    .filter((term) => term.taxonomy === taxonomy)
    .sort((a, b) => byTermName.compare(a.name, b.name) || a.id - b.id)
    .map((term) => presentEmbeddedTerm(term, term.eventCount, urls));
}

export const TecEvent = builder.prismaObject('Event', {
  variant: 'TecEvent',
  ...REST,
  include: SHAPE_INCLUDE,
  interfaces: [TecEventFields],
  fields: () => ({}),
});

export const TecSingleEvent = builder.prismaObject('Event', {
  variant: 'TecSingleEvent',
  ...REST,
  include: SHAPE_INCLUDE,
  interfaces: [TecEventFields],
  fields: (t) => ({
    [RECORD_VERSION_KEY]: t.string({ nullable: true, resolve: (event) => recordVersion(event) }),
    // No JSON-LD for a password-protected event, nor a first event whose start is excluded (`eventShape`).
    json_ld: t.field({
      type: 'JSON',
      extensions: jsonShape(TEC_EVENT_JSON_LD),
      nullable: true,
      select: { image: true, ...linkedRecords },
      resolve: (event, _args, ctx, info) => jsonLdOf(event, ctx, info),
    }),
  }),
});
