import { z } from 'zod';
import type { RestField } from '../core/rest/route-table.js';
import { DEFAULT_EVENT_STATUS, EVENT_STATUSES, INVALID_EVENT_STATUS } from './model/event-status.js';
import { type DeclaredName, type FieldDeclaration, declaredEntries, placed } from './model/event-fields.js';
import {
  type EventField,
  type EventInput,
  type FieldErrors,
  type HandField,
  INVALID,
  type Unlisted,
  type LinkRef,
  type TermRef,
} from './service/event-input.js';
import type { RecurrencePattern } from './series/recurrence.js';
import { readBoolean } from '../core/rest/booleans.js';
import { type BodyTable, paramNames, readBody } from '../core/rest/body-fields.js';
import { ORGANIZER_BODY, VENUE_BODY } from '../places/rest-body.js';
import type { NestedParamNames, ParamNames } from '../core/rest/param-names.js';

// The flat TEC event body (docs/reference.md §S2.1) read into the domain's `EventInput`. Each body
// field is declared once below: the domain field it fills, how its WordPress forms are read (numbers
// as text, boolean words, comma lists, names or ids) and its documentation. The namespace index and
// `/doc` list the same table (`EVENT_FIELDS`), and errors are renamed back through it (`EVENT_PARAMS`).

const PATTERN_UNREADABLE =
  'Invalid parameter: an object of frequency, interval, by_day, by_month_day, by_month, by_set_pos, week_start, count, until, rdates and exdates.';

/** Strings, and numbers as their string forms (D19). */
const text = z.union([z.string(), z.number().finite()]).transform(String);
const flag = z.preprocess((value) => readBoolean(value) ?? value, z.boolean());
/** An id as a number or digits; whether it names a record is the service's check. */
const id = z.union([z.number(), z.string().trim().regex(/^\d+$/).transform(Number)]);
const date = z.union([z.string(), z.number().finite()]);
/** `0`, `"0"`, `""` remove the parent. */
const parent = z
  .union([z.literal(0), z.literal('0'), z.literal(''), id])
  .transform((value) => (value === 0 || value === '0' || value === '' ? null : (value as number)));
/** A series' lines: a list of them, or one line; null or `[]` ends the series. */
const recurrenceLines = z.union([
  z.null().transform(() => []),
  z.string().transform((line) => [line]),
  z.array(z.string()),
]);
const integerText = z
  .string()
  .trim()
  .regex(/^[+-]?\d+$/)
  .transform(Number);
const patternInteger = z.union([z.number(), integerText]);
const commaList = z.string().transform((list) => list.split(',').map((value) => value.trim()));
/** Lists as an array or a comma list (`"MO,WE"`). */
const patternStrings = z.union([z.array(z.string()), commaList]);
const patternIntegers = z.union([z.array(patternInteger), commaList.pipe(z.array(integerText))]);
/**
 * `recurrence_pattern`: the domain's pattern in snake_case; the values are checked by the series
 * service (a 400 naming `recurrence_pattern`), unknown keys refused here.
 */
const recurrencePattern = z
  .strictObject({
    frequency: z.string(),
    interval: patternInteger.nullish(),
    by_day: patternStrings.nullish(),
    by_month_day: patternIntegers.nullish(),
    by_month: patternIntegers.nullish(),
    by_set_pos: patternIntegers.nullish(),
    week_start: z.string().nullish(),
    count: patternInteger.nullish(),
    until: z.string().nullish(),
    rdates: patternStrings.nullish(),
    exdates: patternStrings.nullish(),
  })
  .transform((pattern): RecurrencePattern => ({
    frequency: pattern.frequency,
    interval: pattern.interval,
    byDay: pattern.by_day,
    byMonthDay: pattern.by_month_day,
    byMonth: pattern.by_month,
    bySetPos: pattern.by_set_pos,
    weekStart: pattern.week_start,
    count: pattern.count,
    until: pattern.until,
    rdates: pattern.rdates,
    exdates: pattern.exdates,
  }));
const eventStatus = z
  .string()
  .trim()
  .toLowerCase()
  .transform((value) => value || DEFAULT_EVENT_STATUS);

function isEmptyValue(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0) return true;
  if (typeof value === 'string') return value.trim() === '' || value.trim() === '0';
  if (Array.isArray(value)) return value.every(isEmptyValue);
  if (typeof value === 'object') return Object.values(value).every(isEmptyValue);
  return false;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function idOf(value: unknown): number | null {
  const parsed = id.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/**
 * One venue or organizer entry: an id, `{id}`, or an object of fields (read into the linked post's
 * domain input by its own body table); null when it is none of them.
 */
function linkRef<New>(value: unknown, table: BodyTable<New>): LinkRef<New> | null {
  if (isRecord(value)) {
    if (value.id !== undefined && value.id !== null && value.id !== '') {
      const linked = idOf(value.id);
      return linked === null ? null : { kind: 'id', id: linked, inObject: true };
    }
    return { kind: 'new', ...readBody(table, value) };
  }
  const linked = idOf(value);
  return linked === null ? null : { kind: 'id', id: linked, inObject: false };
}

/**
 * `venue` / `organizer`: an id, a comma list of ids (organizers), `{id}`, an object of fields, or a list
 * of those, in order; an empty value (`""`, `0`, `[]`, `null`, an all-empty object) removes the links (D9).
 */
function linkRefs<New>(
  value: unknown,
  table: BodyTable<New>,
  commaList: boolean,
): Array<LinkRef<New>> | null {
  if (isEmptyValue(value)) return [];
  const items: unknown[] = Array.isArray(value)
    ? value
    : commaList && typeof value === 'string'
      ? value.split(',').map((item) => item.trim())
      : [value];
  const refs: Array<LinkRef<New>> = [];
  for (const item of items) {
    if (isEmptyValue(item)) continue;
    const ref = linkRef(item, table);
    if (!ref) return null;
    refs.push(ref);
  }
  return refs;
}

function termRef(value: unknown): TermRef | null {
  if (isRecord(value)) {
    if (value.id !== undefined && value.id !== null) {
      const term = idOf(value.id);
      return term === null ? null : { kind: 'id', id: term };
    }
    return typeof value.name === 'string' && value.name.trim() !== ''
      ? { kind: 'name', name: value.name.trim() }
      : null;
  }
  if (typeof value === 'number') return { kind: 'id', id: value };
  if (typeof value !== 'string' || value.trim() === '') return null;
  const token = value.trim();
  return /^\d+$/.test(token) ? { kind: 'id', id: Number(token) } : { kind: 'name', name: token };
}

/** `categories` / `tags`: ids or names, a comma list or an array, `{id}` / `{name}` objects; `""`/`[]` clear. */
function termRefs(value: unknown): TermRef[] | null {
  if (value === '' || (Array.isArray(value) && value.length === 0)) return [];
  const items =
    typeof value === 'string'
      ? value.split(',').filter((item) => item.trim() !== '')
      : Array.isArray(value)
        ? value
        : [value];
  const refs: TermRef[] = [];
  for (const item of items) {
    const ref = termRef(item);
    if (!ref) return null;
    refs.push(ref);
  }
  return refs;
}

/** A reader that refuses what `read` cannot make sense of. */
const refs = <T>(read: (value: unknown) => T | null) =>
  z.unknown().transform((value, ctx) => {
    const result = read(value);
    if (result === null) ctx.addIssue({ code: 'custom', message: INVALID });
    return result as T;
  });

interface BodyField<K extends EventField = EventField> {
  /** The input field it fills (and the name the service reports it by). */
  field: K;
  schema: z.ZodType<unknown>;
  doc: RestField;
  /** Why a value that does not read is refused. */
  reason?: string;
  /** `null` removes the links, where WordPress otherwise drops null parameters as not sent (D9). */
  nullRemoves?: true;
}

/** One body field: its domain field, how it reads, and how it is documented. */
function bodyField<K extends EventField>(
  field: K,
  schema: z.ZodType<EventInput[K]>,
  doc: RestField,
  options: Pick<BodyField, 'reason' | 'nullRemoves'> = {},
): BodyField<K> {
  return { field, schema, doc, ...options };
}

/** A declared field (`events/model/event-fields.ts`): read and documented as its kind says. */
function declaredBodyField(name: DeclaredName, field: FieldDeclaration): BodyField {
  const doc = { description: field.restDescription ?? field.description, required: false };
  switch (field.kind) {
    case 'flag':
      return bodyField(name, flag, { type: 'boolean', ...doc });
    case 'url':
      return bodyField(name, text, { type: 'string', format: 'uri', ...doc });
    case 'text':
      return bodyField(name, text, { type: 'string', ...doc }, { reason: field.invalid });
    case 'choice':
      return bodyField(
        name,
        z.string(),
        { type: 'string', enum: [...field.values, ''], ...doc },
        {
          reason: field.invalid,
        },
      );
  }
}

/** The fields written by hand, in the order the reference documents them. */
const HAND_BODY = {
  author: bodyField('authorId', id, { type: 'integer', description: 'The event author ID', required: false }),
  date: bodyField('date', date, {
    type: 'string',
    description: 'The event publication date',
    required: false,
  }),
  date_utc: bodyField('dateUtc', date, {
    type: 'string',
    description: 'The event publication date (UTC time zone)',
    required: false,
  }),
  title: bodyField('title', text, { type: 'string', description: 'The event title', required: true }),
  description: bodyField('description', text, {
    type: 'string',
    description: 'The event description',
    required: false,
  }),
  slug: bodyField('slug', text, { type: 'string', description: 'The event slug', required: false }),
  excerpt: bodyField('excerpt', text, { type: 'string', description: 'The event excerpt', required: false }),
  status: bodyField('status', z.string(), {
    type: 'string',
    enum: ['publish', 'future', 'draft', 'pending', 'private'],
    description: 'The event post status',
    required: false,
  }),
  timezone: bodyField('timezone', z.string(), {
    type: 'string',
    description: 'The event time zone (an IANA name or UTC±H[:MM])',
    required: false,
  }),
  all_day: bodyField('allDay', flag, {
    type: 'boolean',
    default: false,
    description: 'Whether the event lasts the whole day or not',
    required: false,
  }),
  start_date: bodyField('startDate', date, {
    type: 'string',
    description: 'The event start date and time',
    required: true,
  }),
  end_date: bodyField('endDate', date, {
    type: 'string',
    description: 'The event end date and time',
    required: true,
  }),
  image: bodyField('image', z.unknown(), {
    type: ['integer', 'string'],
    description: 'The event featured image ID or URL',
    required: false,
  }),
  cost: bodyField('cost', z.unknown(), {
    type: ['string', 'array'],
    items: { type: ['number', 'string'] },
    description: 'The event cost',
    required: false,
  }),
  website: bodyField('website', text, {
    type: 'string',
    format: 'uri',
    default: null,
    description: 'The event website URL',
    required: false,
  }),
  event_status: bodyField(
    'eventStatus',
    eventStatus,
    {
      type: 'string',
      enum: [...EVENT_STATUSES, ''],
      description: 'Whether the event takes place as listed ("" resets it to scheduled)',
      required: false,
    },
    { reason: INVALID_EVENT_STATUS },
  ),
  event_status_reason: bodyField('eventStatusReason', text, {
    type: 'string',
    description: 'Why the event is canceled or postponed (kept only while it is)',
    required: false,
  }),
  categories: bodyField('categories', refs(termRefs), {
    type: ['array', 'string'],
    items: { type: ['integer', 'string', 'object'] },
    default: null,
    description: 'The event category IDs or names (an array or a comma list)',
    required: false,
  }),
  tags: bodyField('tags', refs(termRefs), {
    type: ['array', 'string'],
    items: { type: ['integer', 'string', 'object'] },
    default: null,
    description: 'The event tag IDs or names (an array or a comma list)',
    required: false,
  }),
  venue: bodyField(
    'venues',
    refs((value) => linkRefs(value, VENUE_BODY, false)),
    {
      type: ['integer', 'object', 'array'],
      items: { type: ['integer', 'string', 'object'] },
      default: null,
      description: 'The event venue ID, or an object of venue fields',
      required: false,
    },
    { nullRemoves: true },
  ),
  organizer: bodyField(
    'organizers',
    refs((value) => linkRefs(value, ORGANIZER_BODY, true)),
    {
      type: ['integer', 'string', 'object', 'array'],
      items: { type: ['integer', 'string', 'object'] },
      default: null,
      description: 'The event organizer IDs or data',
      required: false,
    },
    { nullRemoves: true },
  ),
  post_parent: bodyField('postParentId', parent, {
    type: 'integer',
    description: 'The parent event ID (0 removes it)',
    required: false,
  }),
  // An extension (Google Calendar's `recurrence`): not in the reference's body.
  recurrence: bodyField(
    'recurrence',
    recurrenceLines,
    {
      type: ['array', 'string'],
      items: { type: 'string' },
      default: null,
      description:
        "Extension: RFC 5545 lines (RRULE, RDATE, EXDATE) making the event the first of a series, or its series' new set; [] or null ends the series",
      required: false,
    },
    { nullRemoves: true },
  ),
  // An extension beside `recurrence` (Microsoft Graph's patternedRecurrence, in RFC 5545 terms).
  recurrence_pattern: bodyField(
    'recurrencePattern',
    recurrencePattern,
    {
      type: 'object',
      default: null,
      description:
        'Extension: the series as a form gives it, instead of recurrence: {frequency (DAILY, WEEKLY, MONTHLY, YEARLY, HOURLY), interval, by_day (TU, -1FR), by_month_day, by_month, by_set_pos, week_start, count or until (YYYY-MM-DD or an instant), rdates, exdates (YYYY-MM-DD, a wall clock YYYY-MM-DDTHH:MM or an instant)}',
      required: false,
    },
    { reason: PATTERN_UNREADABLE },
  ),
  // Accepted on the by-id routes only (the service refuses it elsewhere): documented apart.
  password: bodyField('password', text, {
    type: 'string',
    description: 'The event password ("" removes it)',
    required: false,
  }),
};
const everyHandField: Unlisted<HandField, (typeof HAND_BODY)[keyof typeof HAND_BODY]['field']> = true;
void everyHandField;

/** The event body: the hand-written fields and the declared ones, in documentation order. */
const EVENT_BODY: Record<string, BodyField> = placed<BodyField>(
  HAND_BODY,
  declaredEntries('body', declaredBodyField),
);

const docs = (names: string[]): Record<string, RestField> =>
  Object.fromEntries(names.map((name) => [name, EVENT_BODY[name]!.doc]));

/** The body fields of the event routes, as the namespace index and `/doc` describe them. */
export const EVENT_FIELDS = docs(Object.keys(EVENT_BODY).filter((name) => name !== 'password'));
/** Accepted on the by-id event routes only. */
export const EVENT_PASSWORD = docs(['password']);

/** Domain field → REST parameter, for the errors of the event routes. */
export const EVENT_PARAMS: ParamNames = Object.fromEntries(
  Object.entries(EVENT_BODY).map(([name, { field }]) => [field, name]),
);

/** The names inside the reason an inline venue or organizer could not be created. */
export const EVENT_LINK_PARAMS: NestedParamNames = {
  venues: paramNames(VENUE_BODY),
  organizers: paramNames(ORGANIZER_BODY),
};

/**
 * A WordPress body → the domain input, and the fields that could not be read (the service reports
 * them with its own findings). Unknown and read-only fields are ignored; a null counts as not sent,
 * as WordPress drops null parameters, except where it removes links.
 */
export function readEventBody(body: unknown): { input: EventInput; unreadable: FieldErrors } {
  const input: Record<string, unknown> = {};
  const unreadable: FieldErrors = {};
  if (!isRecord(body)) return { input, unreadable };
  for (const [name, { field, schema, reason, nullRemoves }] of Object.entries(EVENT_BODY)) {
    const value = body[name];
    if (value === undefined || (value === null && !nullRemoves)) continue;
    const parsed = schema.safeParse(value);
    if (parsed.success) input[field] = parsed.data;
    else unreadable[field] = reason ?? INVALID;
  }
  return { input: input as EventInput, unreadable };
}
