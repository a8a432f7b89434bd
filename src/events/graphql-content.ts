import type { PrismaModelTypes } from '@pothos/plugin-prisma';
import { builder } from '../core/graphql/schema/builder.js';
import { EventCost, Image, showing } from '../core/graphql/schema/common.js';
import { Organizer } from '../places/graphql-organizer.js';
import { Category } from '../terms/graphql-category.js';
import { Tag } from '../terms/graphql-tag.js';
import { Venue } from '../places/graphql-venue.js';
import { contentWithheld, judged, readableLinks } from '../core/rules/visibility.js';
import { placed } from './model/event-fields.js';
import { declaredObjectFields } from './graphql-fields.js';
import type {
  Media,
  Organizer as OrganizerRow,
  Term,
  Venue as VenueRow,
} from '../generated/sqlite/client.js';

// What a password-protected event withholds from a request without its password: its description,
// links and flags. A normalised client cache (Apollo, Relay, urql) keys an object by type and id, so the
// same `Event:42` would hold the unlocked content after one query and the withheld one after another —
// whichever came last wins. `Event.content(password:)` decides from its own argument alone, and such
// caches key a field by its arguments: `content` and `content(password: "…")` never share an entry.

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;
type EventModel = PrismaModelTypes & Types['PrismaTypes']['Event'];

/** The relations the fields below select (Pothos loads them; a generic builder cannot type them). */
interface EventLinks {
  image: Media | null;
  venues: Array<{ venue: VenueRow }>;
  organizers: Array<{ organizer: OrganizerRow }>;
  terms: Array<{ term: Term }>;
}
const links = (event: object) => event as EventLinks;

export const REQUEST_PASSWORD_DEPRECATION =
  'Withheld or not by the password of the whole request, which a client cache keyed by id cannot tell ' +
  'apart: use `content(password:)`.';

const WITHHELD = 'null when the content is withheld (a password-protected event read without its password)';

/** The withheld fields, for `EventContent` and (deprecated) for `Event` itself. */
export function withheldEventFields<Shape extends EventModel['Shape']>(
  t: PothosSchemaTypes.PrismaObjectFieldBuilder<Types, EventModel, Shape>,
  deprecationReason?: string,
) {
  const flag = (key: 'allDay') =>
    t.boolean({
      nullable: true,
      description: WITHHELD,
      deprecationReason,
      extensions: showing('password', key),
      resolve: (event) => (contentWithheld(event) ? null : event[key]),
    });
  // Categories and tags read the same `terms` selection (one query for the page); differing filters
  // would make Pothos load one of them per event.
  const termsField = (type: typeof Category, taxonomy: string) =>
    t.field({
      type: [type],
      description: 'Empty when withheld',
      deprecationReason,
      extensions: showing('password'),
      select: (_args, _ctx, nested) => ({
        terms: { orderBy: { position: 'asc' }, select: { term: nested(true) } },
      }),
      resolve: (event) =>
        contentWithheld(event)
          ? []
          : links(event)
              .terms.map((link) => link.term)
              .filter((term) => term.taxonomy === taxonomy),
    });
  const fields = {
    contentWithheld: t.boolean({
      description: 'True when the event is password-protected and its content is withheld',
      deprecationReason,
      extensions: showing('password'),
      resolve: (event) => contentWithheld(event),
    }),
    description: t.string({
      description: 'HTML; "" when withheld',
      deprecationReason,
      extensions: showing('password', 'description'),
      resolve: (event) => (contentWithheld(event) ? '' : event.description),
    }),
    excerpt: t.string({
      description: 'HTML; "" when withheld',
      deprecationReason,
      extensions: showing('password', 'excerpt'),
      resolve: (event) => (contentWithheld(event) ? '' : event.excerpt),
    }),
    allDay: flag('allDay'),
    cost: t.field({
      type: EventCost,
      nullable: true,
      description: WITHHELD,
      deprecationReason,
      // Its fields are `EventCost`'s, reading these.
      extensions: showing('password', 'cost', 'currencySymbol', 'currencyCode', 'currencyPosition'),
      resolve: (event) => (contentWithheld(event) ? null : event),
    }),
    website: t.string({
      nullable: true,
      description: `The event website; ${WITHHELD}`,
      deprecationReason,
      extensions: showing('password', 'website'),
      resolve: (event) => (contentWithheld(event) ? null : event.website || null),
    }),
    eventStatusReason: t.string({
      nullable: true,
      description: 'Why it is canceled or postponed; null when there is none or the content is withheld',
      deprecationReason,
      extensions: showing('password', 'eventStatusReason'),
      resolve: (event) => (contentWithheld(event) ? null : event.eventStatusReason || null),
    }),
    image: t.field({
      type: Image,
      nullable: true,
      description: WITHHELD,
      deprecationReason,
      extensions: showing('password', 'imageId'),
      select: (_args, _ctx, nested) => ({ image: nested(true) }),
      resolve: (event) => (contentWithheld(event) ? null : links(event).image),
    }),
    venues: t.field({
      type: [Venue],
      description: 'Empty when withheld',
      deprecationReason,
      // Its links are no column: changed, they change the event's `venues` fact, never merely shown.
      extensions: showing('password'),
      select: (_args, _ctx, nested) => ({
        venues: { orderBy: { position: 'asc' }, select: { venue: nested(true) } },
      }),
      resolve: (event, _args, ctx) =>
        contentWithheld(event)
          ? []
          : readableLinks(
              ctx.viewer,
              links(event).venues.map((link) => link.venue),
            ),
    }),
    organizers: t.field({
      type: [Organizer],
      description: 'Empty when withheld',
      deprecationReason,
      extensions: showing('password'),
      select: (_args, _ctx, nested) => ({
        organizers: { orderBy: { position: 'asc' }, select: { organizer: nested(true) } },
      }),
      resolve: (event, _args, ctx) =>
        contentWithheld(event)
          ? []
          : readableLinks(
              ctx.viewer,
              links(event).organizers.map((link) => link.organizer),
            ),
    }),
    categories: termsField(Category, 'tribe_events_cat'),
    tags: termsField(Tag, 'post_tag'),
  };
  return placed<unknown>(fields, declaredObjectFields(t, true, deprecationReason)) as typeof fields;
}

const EventContent = builder.prismaObject('Event', {
  variant: 'EventContent',
  description:
    "An event's content as this request may see it: withheld (`withheld: true`, empty fields) for a " +
    'password-protected event read without its password by someone who may not edit it.',
  fields: (t) => {
    const { contentWithheld: withheld, ...fields } = withheldEventFields(t);
    return { withheld, ...fields };
  },
});

builder.prismaObjectField('Event', 'content', (t) =>
  t.field({
    type: EventContent,
    description:
      'The content, opened by this password (or by the right to edit the event); withheld otherwise. ' +
      "Decided by this field's own argument alone, so a client cache keyed by arguments never mixes the two.",
    args: {
      password: t.arg.string({ description: 'The password of a password-protected event' }),
    },
    // The same row as the event (as `t.variant` selects it): its fields' selections join the event's query.
    extensions: {
      ...showing('password'),
      pothosPrismaSelect: (_args: unknown, _ctx: unknown, nested: (select: object) => unknown) => nested({}),
    },
    // A copy: the event's own verdict (the request's password) stays as it was for its other fields.
    resolve: (event, { password }, ctx) => judged({ ...event }, ctx.viewer, password),
  }),
);
