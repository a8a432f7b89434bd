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
import {
  type BodyField,
  type BodyReader,
  type BodyTable,
  type ParsedBody,
  FLAG,
  ID,
  STRING,
  TEXT,
  bodyReader,
  paramNames,
  parseBody,
  readBody,
} from '../core/rest/body-fields.js';
import { ORGANIZER_BODY, VENUE_BODY } from '../places/rest-body.js';
import type { NestedParamNames, ParamNames } from '../core/rest/param-names.js';

// The flat TEC event body (docs/reference.md §S2.1) read into the domain's `EventInput`. Each body
// field is declared once below: the domain field it fills, how its WordPress forms are read (numbers
// as text, boolean words, comma lists, names or ids) and its documentation. The body's input type
// (`TecEventBody`) comes from the same table (`EVENT_BODY`), the namespace index and `/doc` from that type,
// and errors are renamed back through it (`EVENT_PARAMS`).

const PATTERN_UNREADABLE =
  'Invalid parameter: an object of frequency, interval, by_day, by_month_day, by_month, by_set_pos, week_start, count, until, rdates and exdates.';

const id = ID.schema;
const date = bodyReader(
  'EventDate',
  'A date: a string, or a number',
  z.union([z.string(), z.number().finite()]),
);
/** `0`, `"0"`, `""` remove the parent. */
const parent = bodyReader(
  'EventParent',
  'An event id as a number or its digits; 0, "0" or "" for none',
  z
    .union([z.literal(0), z.literal('0'), z.literal(''), id])
    .transform((value) => (value === 0 || value === '0' || value === '' ? null : (value as number))),
);
/** A series' lines: a list of them, or one line; null or `[]` ends the series. */
const recurrenceLines = bodyReader(
  'RecurrenceLines',
  'RFC 5545 lines: a list of them, or one line; null or [] for none',
  z.union([z.null().transform(() => []), z.string().transform((line) => [line]), z.array(z.string())]),
);
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
const recurrencePatternSchema = z
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
const recurrencePattern = bodyReader(
  'RecurrencePattern',
  'A series as a form gives it: an object of frequency, interval, by_day, by_month_day, by_month, by_set_pos, week_start, count, until, rdates and exdates',
  recurrencePatternSchema,
);
const eventStatus = bodyReader(
  'EventStatus',
  'An event status word (any case; "" for scheduled)',
  z
    .string()
    .trim()
    .toLowerCase()
    .transform((value) => value || DEFAULT_EVENT_STATUS),
);
/** What the service reads itself (an image id or URL, a cost). */
const anyValue = bodyReader('EventValue', 'Any value, read by the service', z.unknown());

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
    return { kind: 'new', ...readBody(table, parseBody(table, value)) };
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
const refs = <T>(name: string, description: string, read: (value: unknown) => T | null) =>
  bodyReader(
    name,
    description,
    z.unknown().transform((value, ctx) => {
      const result = read(value);
      if (result === null) ctx.addIssue({ code: 'custom', message: INVALID });
      return result as T;
    }),
  );
const terms = refs('TermRefs', 'Term ids or names: an array, a comma list, {id} or {name} objects', termRefs);

/**
 * One field of the event body; `keepNull`: `null` removes the links, where WordPress otherwise drops
 * null parameters as not sent (D9).
 */
interface EventBodyField<K extends EventField = EventField> extends BodyField<EventInput> {
  /** The input field it fills (and the name the service reports it by). */
  to: K;
  /** Why a value that does not read is refused. */
  reason?: string;
}

/** One body field: its domain field, how it reads, and how it is documented (optional unless required). */
function bodyField<K extends EventField>(
  to: K,
  read: BodyReader<EventInput[K]>,
  doc: RestField,
  options: Pick<EventBodyField, 'reason' | 'keepNull'> = {},
): EventBodyField<K> {
  return { to, read, doc: { ...doc, required: doc.required ?? false }, ...options };
}

/** A declared field (`events/model/event-fields.ts`): read and documented as its kind says. */
function declaredBodyField(name: DeclaredName, field: FieldDeclaration): EventBodyField {
  const doc = { description: field.restDescription ?? field.description };
  switch (field.kind) {
    case 'flag':
      return bodyField(name, FLAG, { type: 'boolean', ...doc });
    case 'url':
      return bodyField(name, TEXT, { type: 'string', format: 'uri', ...doc });
    case 'text':
      return bodyField(name, TEXT, { type: 'string', ...doc }, { reason: field.invalid });
    case 'choice':
      return bodyField(
        name,
        STRING,
        { type: 'string', enum: [...field.values, ''], ...doc },
        { reason: field.invalid },
      );
  }
}

/** The fields written by hand, in the order the reference documents them. */
const HAND_BODY = {
  author: bodyField('authorId', ID, { type: 'integer', description: 'The event author ID' }),
  date: bodyField('date', date, { type: 'string', description: 'The event publication date' }),
  date_utc: bodyField('dateUtc', date, {
    type: 'string',
    description: 'The event publication date (UTC time zone)',
  }),
  title: bodyField('title', TEXT, { type: 'string', description: 'The event title', required: true }),
  description: bodyField('description', TEXT, { type: 'string', description: 'The event description' }),
  slug: bodyField('slug', TEXT, { type: 'string', description: 'The event slug' }),
  excerpt: bodyField('excerpt', TEXT, { type: 'string', description: 'The event excerpt' }),
  status: bodyField('status', STRING, {
    type: 'string',
    enum: ['publish', 'future', 'draft', 'pending', 'private'],
    description: 'The event post status',
  }),
  timezone: bodyField('timezone', STRING, {
    type: 'string',
    description: 'The event time zone (an IANA name or UTC±H[:MM])',
  }),
  all_day: bodyField('allDay', FLAG, {
    type: 'boolean',
    default: false,
    description: 'Whether the event lasts the whole day or not',
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
  image: bodyField('image', anyValue, {
    type: ['integer', 'string'],
    description: 'The event featured image ID or URL',
  }),
  cost: bodyField('cost', anyValue, {
    type: ['string', 'array'],
    items: { type: ['number', 'string'] },
    description: 'The event cost',
  }),
  website: bodyField('website', TEXT, {
    type: 'string',
    format: 'uri',
    default: null,
    description: 'The event website URL',
  }),
  event_status: bodyField(
    'eventStatus',
    eventStatus,
    {
      type: 'string',
      enum: [...EVENT_STATUSES, ''],
      description: 'Whether the event takes place as listed ("" resets it to scheduled)',
    },
    { reason: INVALID_EVENT_STATUS },
  ),
  event_status_reason: bodyField('eventStatusReason', TEXT, {
    type: 'string',
    description: 'Why the event is canceled or postponed (kept only while it is)',
  }),
  categories: bodyField('categories', terms, {
    type: ['array', 'string'],
    items: { type: ['integer', 'string', 'object'] },
    default: null,
    description: 'The event category IDs or names (an array or a comma list)',
  }),
  tags: bodyField('tags', terms, {
    type: ['array', 'string'],
    items: { type: ['integer', 'string', 'object'] },
    default: null,
    description: 'The event tag IDs or names (an array or a comma list)',
  }),
  venue: bodyField(
    'venues',
    refs('VenueRefs', 'Venue ids, {id} objects or objects of venue fields', (value) =>
      linkRefs(value, VENUE_BODY, false),
    ),
    {
      type: ['integer', 'object', 'array'],
      items: { type: ['integer', 'string', 'object'] },
      default: null,
      description: 'The event venue ID, or an object of venue fields',
    },
    { keepNull: true },
  ),
  organizer: bodyField(
    'organizers',
    refs(
      'OrganizerRefs',
      'Organizer ids (or a comma list), {id} objects or objects of organizer fields',
      (value) => linkRefs(value, ORGANIZER_BODY, true),
    ),
    {
      type: ['integer', 'string', 'object', 'array'],
      items: { type: ['integer', 'string', 'object'] },
      default: null,
      description: 'The event organizer IDs or data',
    },
    { keepNull: true },
  ),
  post_parent: bodyField('postParentId', parent, {
    type: 'integer',
    description: 'The parent event ID (0 removes it)',
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
    },
    { keepNull: true },
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
    },
    { reason: PATTERN_UNREADABLE },
  ),
  // Accepted on the by-id routes only (the service refuses it elsewhere): documented apart.
  password: bodyField('password', TEXT, {
    type: 'string',
    description: 'The event password ("" removes it)',
  }),
};
const everyHandField: Unlisted<HandField, (typeof HAND_BODY)[keyof typeof HAND_BODY]['to']> = true;
void everyHandField;

/** The event body: the hand-written fields and the declared ones, in documentation order. */
export const EVENT_BODY: BodyTable<EventInput, EventBodyField> = placed<EventBodyField>(
  HAND_BODY,
  declaredEntries('body', declaredBodyField),
);

/** Domain field → REST parameter, for the errors of the event routes. */
export const EVENT_PARAMS: ParamNames = paramNames(EVENT_BODY);

/** The names inside the reason an inline venue or organizer could not be created. */
export const EVENT_LINK_PARAMS: NestedParamNames = {
  venues: paramNames(VENUE_BODY),
  organizers: paramNames(ORGANIZER_BODY),
};

/** Why each field that declares it is refused when unreadable (else `INVALID`). */
const EVENT_REASONS = new Map(
  Object.values(EVENT_BODY).flatMap((field) => (field.reason ? [[field.to, field.reason] as const] : [])),
);

/**
 * A WordPress body (as `TecEventBody` parsed it) → the domain input, and the fields that could not be
 * read with the reason each is refused for (the service reports them with its own findings). Unknown
 * and read-only fields are ignored; a null counts as not sent, as WordPress drops null parameters,
 * except where it removes links.
 */
export function readEventBody(body: ParsedBody | null | undefined): {
  input: EventInput;
  unreadable: FieldErrors;
} {
  const { input, unreadable } = readBody(EVENT_BODY, body);
  const reasons: FieldErrors = {};
  for (const field of unreadable) reasons[field] = EVENT_REASONS.get(field) ?? INVALID;
  return { input, unreadable: reasons };
}
