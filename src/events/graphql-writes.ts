import { builder } from '../core/graphql/schema/builder.js';
import {
  type InputFieldBuilder,
  PostStatus,
  IF_MATCH_DESCRIPTION,
  keyOf,
  LOOKUPS,
  lookupArgs,
  withIfMatch,
  withoutNulls,
} from '../core/graphql/schema/common.js';
import { CreateOrganizerInput } from '../places/graphql-organizer.js';
import { CreateVenueInput, venueInput } from '../places/graphql-venue.js';
import { RecurrencePatternInput } from './series/recurrence-pattern.js';
import { NOT_FOUND } from '../core/rules/visibility.js';
import { hidingMissing } from '../core/rules/permissions.js';
import type { Context } from '../core/context/context.js';
import type {
  EventField,
  EventInput,
  FieldErrors,
  LinkRef,
  TermRef,
  Unlisted,
} from './service/event-input.js';
import { placed } from './model/event-fields.js';
import { type DeclaredInputRefs, declaredInputFields } from './graphql-fields.js';
import { createEvent, deleteEvent, updateEvent } from './service/event-writes.js';
import { writtenEvent } from './service/event-access.js';
import { Event, EventStatus } from './graphql.js';

// The event's GraphQL writes: the typed inputs (create, update, by slug), read into the domain input so
// the service's errors name the fields as the client wrote them, and the mutations over them.

const writeDateInput = (what: string) =>
  `${what}: ISO 8601 (an offset is honoured), "Y-m-d H:i:s", a Unix timestamp or an English phrase ("tomorrow 9am"); read in the event time zone`;

const EventTermInput = builder.inputType('EventTermInput', {
  description:
    'A category or tag, by id or by name (one of them); an unknown name creates the term (editors only)',
  fields: (t) => ({
    id: t.int({ description: 'An existing term id' }),
    name: t.string({ description: 'A term name: the existing term of that name, or a new one' }),
  }),
});

const EventVenueInput = builder.inputType('EventVenueInput', {
  description:
    'An existing venue (id), or one to create (create); a venue with the same name (and description) is reused',
  fields: (t) => ({
    id: t.int({ description: 'An existing venue id' }),
    create: t.field({ type: CreateVenueInput, description: 'A venue to create (or reuse by name)' }),
  }),
});

const EventOrganizerInput = builder.inputType('EventOrganizerInput', {
  description:
    'An existing organizer (id), or one to create (create); an organizer with the same name (and description) is reused',
  fields: (t) => ({
    id: t.int({ description: 'An existing organizer id' }),
    create: t.field({ type: CreateOrganizerInput, description: 'An organizer to create (or reuse by name)' }),
  }),
});

function eventInputFields(t: InputFieldBuilder, create: boolean) {
  const fields = {
    title: t.string({ required: create, description: 'Not empty' }),
    startDate: t.string({ required: create, description: writeDateInput('Start') }),
    endDate: t.string({
      required: create,
      description: writeDateInput('End; an end before the start becomes the start'),
    }),
    timezone: t.string({
      description:
        'IANA name (America/New_York) or UTC±H[:MM]; default: the site zone (create) or the event zone (update)',
    }),
    allDay: t.boolean({
      description: 'Stretches the event to 00:00:00 of its first day and 23:59:59 of its last',
    }),
    description: t.string({ description: 'HTML; plain text is put in paragraphs' }),
    excerpt: t.string({ description: 'HTML; plain text is put in paragraphs' }),
    slug: t.string({ description: 'Made unique among events (-2, -3, …)' }),
    status: t.field({
      type: PostStatus,
      description:
        'Scaled back to pending (or draft) for those who may not publish; future with a future date schedules',
    }),
    authorId: t.int({ description: 'An existing user; only editors may name someone else' }),
    date: t.string({ description: 'Publication date in the event time zone (any accepted date format)' }),
    dateUtc: t.string({ description: 'Publication date in UTC' }),
    image: t.string({
      description: 'An image media id, or an http(s) image URL (needs the upload capability); "" removes it',
    }),
    cost: t.stringList({
      description:
        'Costs with an optional currency symbol ("$10", "20 €", "10 - 20", "Free"); [] clears them',
    }),
    website: t.string({ description: 'A URL; "" clears it' }),
    eventStatus: t.field({
      type: EventStatus,
      description: 'Scheduled (the default), canceled or postponed',
    }),
    eventStatusReason: t.string({
      description: 'Why it is canceled or postponed; kept only while it is (cleared when scheduled)',
    }),
    categories: t.field({ type: [EventTermInput], description: 'Replaces the categories; [] removes them' }),
    tags: t.field({ type: [EventTermInput], description: 'Replaces the tags; [] removes them' }),
    venues: t.field({
      type: [EventVenueInput],
      description: 'Replaces the venues, in order; [] removes them',
    }),
    organizers: t.field({
      type: [EventOrganizerInput],
      description: 'Replaces the organizers, in order; [] removes them',
    }),
    postParentId: t.int({ description: 'The parent event; 0 removes it' }),
    recurrence: t.stringList({
      description:
        "RFC 5545 lines (RRULE, RDATE, EXDATE) making the event the first of a series, or its series' new set; [] or null ends the series (docs/reference/recurrence.md)",
    }),
    recurrencePattern: t.field({
      type: RecurrencePatternInput,
      description: 'The series as a form gives it, instead of recurrence (not both); null: unchanged',
    }),
  };
  // The declared fields among them, by their anchors; typed as the declaration says (`$inferInput`).
  return placed<unknown>(fields, declaredInputFields(t)) as typeof fields & DeclaredInputRefs;
}

const password = (t: InputFieldBuilder) =>
  t.string({
    description: 'Hides the event content from those who may not edit it, unless they give it; "" removes it',
  });

const CreateEventInput = builder.inputType('CreateEventInput', {
  description: 'A new event: title, startDate and endDate are required; the other fields have defaults',
  fields: (t) => ({ ...eventInputFields(t, true), password: password(t) }),
});

const UpdateEventInput = builder.inputType('UpdateEventInput', {
  description: 'Only the fields given change; null leaves a field unchanged',
  fields: (t) => ({ ...eventInputFields(t, false), password: password(t) }),
});

const UpdateEventBySlugInput = builder.inputType('UpdateEventBySlugInput', {
  description: 'Only the fields given change; null leaves a field unchanged (the password is set by id)',
  fields: (t) => eventInputFields(t, false),
});

type Maybe<T> = T | null | undefined;

/** What a write input says, inferred from its declaration (every field optional: the update's). */
type EventInputFields = typeof UpdateEventInput.$inferInput;

const hasId = (entry: { id?: Maybe<number> }) => entry.id !== null && entry.id !== undefined;

/**
 * `{id}` or `{create}` entries → link references, exactly one of them per entry; otherwise the field
 * is noted in `unreadable`, which the write reports after its caller check (D22).
 */
function linkRefs<Fields, New>(
  field: 'venues' | 'organizers',
  entries: Maybe<Array<{ id?: Maybe<number>; create?: Maybe<Fields> }>>,
  toInput: (fields: Fields) => New,
  unreadable: FieldErrors,
): Array<LinkRef<New>> | undefined {
  if (!entries) return undefined;
  if (entries.some((entry) => hasId(entry) === Boolean(entry.create))) {
    unreadable[field] = 'Each entry gives either id or create.';
    return undefined;
  }
  return entries.map((entry) =>
    hasId(entry)
      ? { kind: 'id', id: entry.id!, inObject: true }
      : { kind: 'new', input: toInput(entry.create as Fields), unreadable: [] },
  );
}

function termRefs(entries: EventInputFields['categories']): TermRef[] | undefined {
  return entries?.map((entry) =>
    entry.id !== null && entry.id !== undefined
      ? { kind: 'id', id: entry.id }
      : { kind: 'name', name: entry.name ?? '' },
  );
}

// Every input field is a domain field of the same name, and every domain field an input field (a compile
// error otherwise).
const sameNames: Unlisted<keyof EventInputFields, EventField> = true;
const everyField: Unlisted<EventField, keyof EventInputFields> = true;
void sameNames;
void everyField;

/**
 * The typed input → the domain input: the input fields carry the domain's names, so errors name them
 * as the client wrote them. null means "unchanged"; `postParentId: 0` removes the parent. What cannot
 * be read is returned as `unreadable`, for the write to report after its caller check (D22).
 */
function eventInput(fields: EventInputFields): { input: EventInput; unreadable: FieldErrors } {
  const { categories, tags, venues, organizers, postParentId, recurrence, ...plain } = fields;
  const input: EventInput = Object.fromEntries(
    Object.entries(plain).filter(([, value]) => value !== null && value !== undefined),
  );
  const unreadable: FieldErrors = {};
  if (postParentId !== null && postParentId !== undefined) input.postParentId = postParentId || null;
  // Unlike the other fields, an explicit null ends the series, as [] does.
  if (recurrence !== undefined) input.recurrence = recurrence;
  if (categories) input.categories = termRefs(categories);
  if (tags) input.tags = termRefs(tags);
  const venueRefs = linkRefs('venues', venues, venueInput, unreadable);
  if (venueRefs) input.venues = venueRefs;
  const organizerRefs = linkRefs('organizers', organizers, withoutNulls, unreadable);
  if (organizerRefs) input.organizers = organizerRefs;
  return { input, unreadable };
}

const MISSING_EVENT = NOT_FOUND.event(0).code;

export const RecurrenceScopeEnum = builder.enumType('RecurrenceScope', {
  description: 'Which events of a series a write to one of its occurrences changes',
  values: {
    THIS: { value: 'this', description: 'That occurrence only (it becomes an exception)' },
    THIS_AND_FOLLOWING: {
      value: 'following',
      description: 'It and the later ones: the series ends before it and a new series starts there',
    },
    ALL: { value: 'all', description: 'The whole series (its exceptions keep their own values)' },
  } as const,
});

/**
 * A write on the event an id or slug names (D22): an unknown one is told (404) only to a caller who
 * may act on every event; anyone else gets the refusal an existing event they may not touch gets.
 */
const onNamedEvent = <T>(ctx: Context, action: 'edit' | 'delete', run: () => Promise<T>) =>
  hidingMissing(ctx.viewer, action, MISSING_EVENT, run);

const ifMatchArg = builder.args((t) => ({ ifMatch: t.string({ description: IF_MATCH_DESCRIPTION }) }));
const scopeArg = builder.args((t) => ({
  scope: t.field({
    type: RecurrenceScopeEnum,
    defaultValue: 'this',
    description: 'On an occurrence of a series: that one, it and the later ones, or all',
  }),
}));

// updateEvent and deleteEvent, each with its by-slug twin: one declaration per write, the lookup as data.
builder.mutationFields((t) => ({
  createEvent: t.prismaField({
    type: Event,
    description:
      'Creates an event (contributors: as a draft or pending). Errors: rest_forbidden (401/403), rest_invalid_param or rest_missing_callback_param (400) naming the input fields',
    args: { input: t.arg({ type: CreateEventInput, required: true, description: 'The new event' }) },
    resolve: (query, _root, { input }, ctx) => {
      const { input: event, unreadable } = eventInput(input);
      return createEvent(ctx, event, writtenEvent(ctx, query), {
        unreadable,
      });
    },
  }),
  ...Object.fromEntries(
    LOOKUPS.map((lookup) => {
      const byId = lookup.by === 'id';
      return [
        `updateEvent${lookup.suffix}`,
        t.prismaField({
          type: Event,
          description: byId
            ? 'Changes an event (its author, or editors). Errors: rest-event-not-found (404, told only to editors), rest_forbidden (401/403), rest_invalid_param (400), precondition_failed (412)'
            : 'As updateEvent, by slug (the password cannot be set this way)',
          args: {
            ...lookupArgs(lookup, byId ? 'The event id' : 'The event slug'),
            // By slug, the input has no password.
            input: t.arg({
              type: byId ? UpdateEventInput : UpdateEventBySlugInput,
              required: true,
              description: 'The fields to change',
            }),
            ...ifMatchArg,
            ...scopeArg,
          },
          resolve: (query, _root, args, ctx) =>
            onNamedEvent(ctx, 'edit', () => {
              const { input: event, unreadable } = eventInput(args.input);
              return updateEvent(
                withIfMatch(ctx, args.ifMatch),
                keyOf(lookup, args),
                event,
                writtenEvent(ctx, query),
                {
                  passwordAllowed: byId,
                  unreadable,
                  scope: args.scope ?? 'this',
                },
              );
            }),
        }),
      ];
    }),
  ),
  ...Object.fromEntries(
    LOOKUPS.map((lookup) => {
      const byId = lookup.by === 'id';
      return [
        `deleteEvent${lookup.suffix}`,
        t.prismaField({
          type: Event,
          description: byId
            ? 'Moves the event to the trash (a second time: 410 event-is-in-trash); force: deletes it for good (editors). Errors: rest-event-not-found (404, told only to editors), rest_forbidden (401/403), precondition_failed (412)'
            : 'As deleteEvent, by slug',
          args: {
            ...lookupArgs(lookup, byId ? 'The event id' : 'The event slug'),
            force: t.arg.boolean({
              defaultValue: false,
              description: 'true: delete for good instead of trashing',
            }),
            ...ifMatchArg,
            ...scopeArg,
          },
          resolve: (query, _root, args, ctx) =>
            onNamedEvent(ctx, 'delete', () =>
              deleteEvent(
                withIfMatch(ctx, args.ifMatch),
                keyOf(lookup, args),
                args.force ?? false,
                writtenEvent(ctx, query),
                {
                  scope: args.scope ?? 'this',
                },
              ),
            ),
        }),
      ];
    }),
  ),
}));
