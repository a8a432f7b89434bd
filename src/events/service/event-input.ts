import type { DateTime } from 'luxon';
import { CostInputError, type StoredCost, parseCostInput } from '../../core/graphql/cost.js';
import { isValidTimezone, parseDateInput, publicationDates } from '../../core/rules/dates.js';
import { missingParams } from '../../core/errors/errors.js';
import { type EventStatusValue, INVALID_EVENT_STATUS, isEventStatus } from '../model/event-status.js';
import { autoParagraphs } from '../../core/rules/texts/html.js';
import { isRecordId } from '../../core/rules/ids.js';
import { MAX_LINKED_PER_WRITE, exceeds, tooManyValues } from '../../core/rules/limits.js';
import { MAX_RECURRENCE_DATES, MAX_RECURRENCE_LINES, type RecurrencePattern } from '../series/recurrence.js';
import { toSlug } from '../../core/rules/slugs.js';
import {
  DECLARED_NAMES,
  type DeclaredInput,
  type DeclaredName,
  type DeclaredValues,
  type Unlisted,
  checkField,
  placed,
  declaredEntries,
} from '../model/event-fields.js';
import { WRITABLE_STATUSES, urlField } from '../../places/service/linked-posts.js';
import type { OrganizerInput } from '../../places/service/organizers.js';
import type { VenueInput } from '../../places/service/venues.js';

// What an event write says, in the domain's words: each API reads its own dialect into an
// `EventInput` (REST: `events/rest-body.ts`; GraphQL: `events/graphql-writes.ts`, whose input fields
// carry these very names) and the service reports every bad field by these names. The API edge renames
// them for its clients.

/** A date as a client writes it: ISO 8601, "Y-m-d H:i:s", a Unix timestamp or an English phrase. */
type DateExpression = string | number;

/**
 * A venue or organizer named by id, or given as its own domain input to create (or match,
 * docs/reference.md §6.4); `unreadable` names the fields the API edge could not read.
 */
export type LinkRef<New> =
  { kind: 'id'; id: number; inObject: boolean } | { kind: 'new'; input: New; unreadable: readonly string[] };
/** A category or tag named by id or by name (D3). */
export type TermRef = { kind: 'id'; id: number } | { kind: 'name'; name: string };

/**
 * An event write: each field is absent when not given; `[]` for a link list means "remove all". The
 * plain fields are declared in `events/model/event-fields.ts`; these have rules of their own.
 */
interface HandInput {
  title?: string;
  description?: string;
  excerpt?: string;
  slug?: string;
  status?: string;
  authorId?: number;
  /** `""` is the site's zone. */
  timezone?: string;
  startDate?: DateExpression;
  endDate?: DateExpression;
  /** Publication date in the event's zone; with `dateUtc`, each is kept as sent. */
  date?: DateExpression;
  dateUtc?: DateExpression;
  allDay?: boolean;
  website?: string;
  /** `null` removes the parent. */
  postParentId?: number | null;
  eventStatus?: string;
  /** Kept only while the event is canceled or postponed. */
  eventStatusReason?: string;
  /** A media id, an image URL or `""` (none), as `checkImage` reads it. */
  image?: unknown;
  /** Costs as `parseCostInput` reads them: a string, a number or a list of them. */
  cost?: unknown;
  /** `null` or `""` removes the password. */
  password?: string | null;
  venues?: Array<LinkRef<VenueInput>>;
  organizers?: Array<LinkRef<OrganizerInput>>;
  categories?: TermRef[];
  tags?: TermRef[];
  /**
   * RFC 5545 lines (`RRULE:…`, `RDATE…`, `EXDATE…`) making the event the first of a series, or its
   * series' new set; `[]` or `null` ends the series (docs/reference/recurrence.md).
   */
  recurrence?: readonly string[] | null;
  /**
   * The same set as a form gives it (Microsoft Graph's patternedRecurrence, in RFC 5545 terms), beside
   * `recurrence` and not with it; the series service reads it into the same lines.
   */
  recurrencePattern?: RecurrencePattern | null;
}

export type EventInput = HandInput & DeclaredInput;
export type EventField = keyof EventInput;
/** The fields written by hand in each layer (the others come from their declaration). */
export type HandField = keyof HandInput;
/** Bad fields and why, by domain name. */
export type FieldErrors = Partial<Record<EventField, string>>;

export type { Unlisted };

/** The order bad fields are reported in (references checked against the database come after). */
const HAND_ORDER = [
  'title',
  'description',
  'excerpt',
  'slug',
  'status',
  'authorId',
  'timezone',
  'startDate',
  'endDate',
  'date',
  'dateUtc',
  'allDay',
  'website',
  'postParentId',
  'eventStatus',
  'eventStatusReason',
  'image',
  'cost',
  'password',
  'venues',
  'organizers',
  'categories',
  'tags',
  'recurrence',
  'recurrencePattern',
] as const satisfies readonly HandField[];
const everyHandField: Unlisted<HandField, (typeof HAND_ORDER)[number]> = true;
void everyHandField;
const FIELD_ORDER = Object.keys(
  placed(
    Object.fromEntries(HAND_ORDER.map((name) => [name, name])),
    declaredEntries('domain', (name) => name),
  ),
) as EventField[];

const REQUIRED_ON_CREATE: readonly EventField[] = ['title', 'startDate', 'endDate'];

export const INVALID = 'Invalid parameter.';
const INVALID_TIMEZONE = 'Invalid parameter: a time zone is an IANA name (America/New_York) or UTC±H[:MM].';
const PASSWORD_BY_ID = 'The password of an event is set through its by-ID route only.';
const BOTH_RECURRENCES = 'A series is given as lines (recurrence) or as a pattern, not both.';

type WritableStatus = (typeof WRITABLE_STATUSES)[number];

/** An input whose values passed the checks that need no database: dates read, costs parsed. */
export type EventValues = HandValues & DeclaredValues;

interface HandValues {
  title?: string;
  description?: string;
  excerpt?: string;
  slug?: string;
  status?: WritableStatus;
  authorId?: number;
  publishedAt?: Date;
  /** The wall-clock of a `date` sent beside `dateUtc`; null: derived from `publishedAt`. */
  postDate?: string | null;
  timezone?: string;
  allDay?: boolean;
  start?: DateTime;
  end?: DateTime;
  image?: unknown;
  cost?: StoredCost;
  website?: string;
  eventStatus?: EventStatusValue;
  eventStatusReason?: string;
  postParentId?: number | null;
  password?: string | null;
  venues?: Array<LinkRef<VenueInput>>;
  organizers?: Array<LinkRef<OrganizerInput>>;
  categories?: TermRef[];
  tags?: TermRef[];
  /** Lines as sent (checked against the series' zone by `series-edits.ts`); `[]`: no series. */
  recurrence?: string[];
  /** A pattern as sent (read against the series' zone by `series-edits.ts`); never with `recurrence`. */
  recurrencePattern?: RecurrencePattern;
}

/** The field a series' set came in: its refusals name it. */
export type RecurrenceField = 'recurrence' | 'recurrencePattern';

/** A series' set as a write sent it: lines (`[]` ends the series) or a pattern. */
export type SentSeries =
  { field: 'recurrence'; set: string[] } | { field: 'recurrencePattern'; set: RecurrencePattern };

/** The set a write sent, if any. */
export function sentSeries(values: EventValues): SentSeries | undefined {
  if (values.recurrencePattern) return { field: 'recurrencePattern', set: values.recurrencePattern };
  return values.recurrence && { field: 'recurrence', set: values.recurrence };
}

/** Whether a write makes or replaces a series (rather than ending it, or saying nothing of it). */
export function makesSeries(sent: SentSeries | undefined): sent is SentSeries {
  return sent !== undefined && (sent.field === 'recurrencePattern' || sent.set.length > 0);
}

export interface CheckOptions {
  mode: 'create' | 'update';
  /** The zone dates are read in when the input names none: the event's own (update) or the site's. */
  zone: string;
  siteTimezone: string;
  passwordAllowed: boolean;
  now: Date;
}

const isWritableStatus = (status: string): status is WritableStatus =>
  (WRITABLE_STATUSES as readonly string[]).includes(status);

const badRefs = (refs: Array<LinkRef<unknown> | TermRef>) =>
  refs.some((ref) => (ref.kind === 'id' ? !isRecordId(ref.id) : ref.kind === 'name' && !ref.name.trim()));

/**
 * The input checked without the database. Required fields missing on create →
 * `rest_missing_callback_param`; otherwise every bad field (with those the API edge could not read,
 * `unreadable`) is returned, in field order.
 */
export function checkEventInput(
  input: EventInput,
  unreadable: FieldErrors,
  options: CheckOptions,
): { values: EventValues; bad: FieldErrors } {
  if (options.mode === 'create') {
    const missing = REQUIRED_ON_CREATE.filter((name) => input[name] === undefined && !unreadable[name]);
    if (missing.length) throw missingParams(missing);
  }
  const bad: FieldErrors = { ...unreadable };
  const values: EventValues = {};
  const given = <K extends EventField>(name: K, check: (value: NonNullable<EventInput[K]>) => void) => {
    const value = input[name];
    if (value !== undefined && value !== null && !bad[name]) check(value as NonNullable<EventInput[K]>);
  };

  given('title', (title) => (title.trim() ? (values.title = title.trim()) : (bad.title = INVALID)));
  given('description', (text) => (values.description = autoParagraphs(text)));
  given('excerpt', (text) => (values.excerpt = autoParagraphs(text)));
  given('slug', (slug) => {
    const made = toSlug(slug.trim(), '');
    if (made) values.slug = made;
    else bad.slug = INVALID;
  });
  given('status', (status) => {
    const name = status.trim();
    if (isWritableStatus(name)) values.status = name;
    else bad.status = INVALID;
  });
  given('authorId', (id) => (isRecordId(id) ? (values.authorId = id) : (bad.authorId = INVALID)));

  let zone = options.zone;
  given('timezone', (timezone) => {
    const name = timezone.trim();
    if (name === '') values.timezone = options.siteTimezone;
    else if (isValidTimezone(name)) values.timezone = name;
    else bad.timezone = INVALID_TIMEZONE;
    zone = values.timezone ?? zone;
  });
  const date = (
    name: 'startDate' | 'endDate' | 'date' | 'dateUtc',
    inZone: string,
    assign: (value: DateTime) => void,
  ) =>
    given(name, (expression) => {
      const parsed = parseDateInput(expression, inZone, options.now);
      if (parsed?.isValid) assign(parsed);
      else bad[name] = INVALID;
    });
  if (!bad.timezone) {
    date('startDate', zone, (value) => (values.start = value.setZone(zone)));
    date('endDate', zone, (value) => (values.end = value.setZone(zone)));
  }
  let local: DateTime | undefined;
  let utc: DateTime | undefined;
  date('date', zone, (value) => (local = value));
  date('dateUtc', 'UTC', (value) => (utc = value));
  Object.assign(values, publicationDates(local, utc, zone));

  given('allDay', (value) => (values.allDay = value));
  for (const name of DECLARED_NAMES) checkDeclared(name, input, values, bad);
  given('website', (url) => {
    const parsed = urlField.safeParse(url);
    if (parsed.success) values.website = parsed.data;
    else bad.website = INVALID;
  });
  if (input.postParentId === null) values.postParentId = null;
  given('postParentId', (id) => (isRecordId(id) ? (values.postParentId = id) : (bad.postParentId = INVALID)));
  given('eventStatus', (status) =>
    isEventStatus(status) ? (values.eventStatus = status) : (bad.eventStatus = INVALID_EVENT_STATUS),
  );
  given('eventStatusReason', (reason) => (values.eventStatusReason = reason.trim()));
  if (input.image !== undefined) values.image = input.image;
  given('cost', (cost) => {
    try {
      values.cost = parseCostInput(cost);
    } catch (error) {
      if (!(error instanceof CostInputError)) throw error;
      bad.cost = error.message;
    }
  });

  if ((input.password !== undefined || bad.password) && !options.passwordAllowed)
    bad.password = PASSWORD_BY_ID;
  else if (input.password !== undefined && !bad.password) values.password = input.password || null;

  for (const name of ['venues', 'organizers'] as const) {
    given(name, (refs) => {
      if (exceeds(refs, MAX_LINKED_PER_WRITE)) bad[name] = tooManyValues(MAX_LINKED_PER_WRITE);
      else if (badRefs(refs)) bad[name] = INVALID;
      else values[name] = refs;
    });
  }
  for (const name of ['categories', 'tags'] as const) {
    given(name, (refs) => {
      if (exceeds(refs)) bad[name] = tooManyValues();
      else if (badRefs(refs)) bad[name] = INVALID;
      else
        values[name] = refs.map((ref) =>
          ref.kind === 'name' ? { kind: 'name', name: ref.name.trim() } : ref,
        );
    });
  }

  if (input.recurrence === null) values.recurrence = [];
  given('recurrence', (lines) => {
    if (exceeds(lines, MAX_RECURRENCE_LINES)) bad.recurrence = tooManyValues(MAX_RECURRENCE_LINES);
    else values.recurrence = [...lines];
  });
  given('recurrencePattern', (pattern) => {
    if (input.recurrence !== undefined) bad.recurrencePattern = BOTH_RECURRENCES;
    else if ([pattern.rdates, pattern.exdates].some((dates) => exceeds(dates, MAX_RECURRENCE_DATES)))
      bad.recurrencePattern = tooManyValues(MAX_RECURRENCE_DATES);
    else values.recurrencePattern = pattern;
  });

  const ordered: FieldErrors = {};
  for (const name of FIELD_ORDER) if (bad[name] !== undefined) ordered[name] = bad[name];
  return { values, bad: ordered };
}

/** A declared field's check (`events/model/event-fields.ts`), given the field's input when sent. */
function checkDeclared<K extends DeclaredName>(
  name: K,
  input: DeclaredInput,
  values: DeclaredValues,
  bad: FieldErrors,
): void {
  const value = input[name];
  if (value === undefined || value === null || bad[name]) return;
  const checked = checkField(name, value);
  if (checked.ok) Object.assign(values, { [name]: checked.value });
  else bad[name] = checked.reason;
}
