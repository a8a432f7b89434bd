import type { EventFact } from '../../core/cache/dependencies.js';
import { isUrl } from '../../core/rules/urls.js';
import type { Event } from '../../generated/sqlite/client.js';

// The event fields declared once, Keystone-style: each entry names the field in every dialect (its
// domain name is the key, and the GraphQL name and the column), its kind, its documentation and whether
// a protected event withholds it. Every layer derives its part from the kind: the domain input and
// checked values (`events/service/event-input.ts`), the column writes
// (`events/service/writes/written-columns.ts`), the REST body reader and `/doc` (`events/rest-body.ts`),
// the REST shape (`events/rest-shape.ts`), the GraphQL object (`events/graphql.ts`,
// `events/graphql-content.ts`) and input fields (`events/graphql-writes.ts`), the JSON-LD
// (`events/rest-present.ts`), the importers (`imports/tec/item-records.ts`, `csv.ts`, `writes.ts`), the
// series' copies (`events/series/series-rows.ts`) and what the cache knows of a change
// (`events/service/event-facts.ts`).
// Adding an optional field is an entry here, its column in `schema.prisma` and a migration; the types below
// fail the build when the column is missing or of another type.
//
// Fields with rules of their own (dates, links, costs, slugs, statuses…) are written by hand in those
// layers, each list checked by the compiler against `EventInput` (`HandField`).

/** Where a field goes in an ordered layer: after this key; absent → after the previous declared field. */
interface Anchor {
  /** The REST shape's key. */
  rest: string;
  /** The REST body's parameter (documentation order). */
  body: string;
  /** The domain (and GraphQL) name: error order, GraphQL fields and inputs. */
  domain: string;
}

interface Common {
  /** Key of the REST shape and parameter of the REST body. */
  rest: string;
  /** GraphQL and `/doc` description of the value. */
  description: string;
  /** The reference's own wording of the REST parameter, where it has one. */
  restDescription?: string;
  /** A password-protected event read without its password shows it blank (null, ""). */
  withheld: boolean;
  /** Not in the reference's shapes (TEC's REST API v1 does not show it). */
  extension?: true;
  after?: Partial<Anchor>;
  /**
   * On a series: `copied` from the first event to every occurrence (an occurrence edited alone keeps its
   * own), or `series-wide`: the first event decides it for all, an occurrence is never written alone.
   */
  series: 'copied' | 'series-wide';
  /**
   * What a change of it means to cached answers: the list fact it is (`core/cache/dependencies.ts`; null:
   * no list reads it), and `shownOnly` when nothing reads it but the fields showing it.
   */
  cache: { fact: EventFact | null; shownOnly: boolean };
  /** Its schema.org property in the event's JSON-LD, and the value shown for the stored one. */
  jsonLd?: { name: string; value?: (stored: string) => unknown };
  /** Its column in a CSV import (The Events Calendar importer's key and label). */
  csv?: { column: string; label: string };
  /** Its key in a TEC source's event (another site's REST API or this service's own), when not `rest`. */
  source?: string;
  /**
   * Its iCalendar property in feeds, read back by the ICS importer: the name (RFC 5545, 7986), its
   * parameters, and which events' entries carry it (by their other values; default all showing it).
   */
  ical?: {
    property: string;
    params?: string;
    carried?: (event: Readonly<Record<string, unknown>>) => boolean;
  };
}

/** A boolean column; REST reads WordPress's boolean words. */
export interface FlagField extends Common {
  kind: 'flag';
}

/** An absolute http(s) URL or "" (none), as `website`. */
export interface UrlField extends Common {
  kind: 'url';
}

/** One of a few words; "" resets it to the default. GraphQL: an enum. */
export interface ChoiceField<V extends string = string> extends Common {
  kind: 'choice';
  values: readonly V[];
  default: V;
  /** The GraphQL enum: its name and what it is. */
  enum: { name: string; description: string; values: Record<V, string> };
  /** The 400's reason for any other value. */
  invalid: string;
}

/** Free text of a bounded length, "" for none; `valid` says which texts are accepted. */
interface TextField extends Common {
  kind: 'text';
  /** A text it accepts (its GraphQL and `/doc` description says the same in words). */
  example: string;
  maxLength: number;
  valid: (text: string) => boolean;
  /** The 400's reason for a text not accepted. */
  invalid: string;
}

export type FieldDeclaration = FlagField | UrlField | ChoiceField | TextField;

const choice = <const V extends string>(field: Omit<ChoiceField<V>, 'kind' | 'invalid'>): ChoiceField<V> => ({
  kind: 'choice',
  invalid: `Invalid parameter: one of ${field.values.join(', ')}.`,
  ...field,
});

export const ATTENDANCE_MODES = ['offline', 'online', 'mixed'] as const;
type AttendanceMode = (typeof ATTENDANCE_MODES)[number];

/** A stored mode as one of the words (a row written before the column had its check reads as offline). */
export const attendanceMode = (stored: string): AttendanceMode =>
  (ATTENDANCE_MODES as readonly string[]).includes(stored) ? (stored as AttendanceMode) : 'offline';

/** schema.org's `eventAttendanceMode` of each mode. */
const SCHEMA_ORG_ATTENDANCE_MODE: Record<AttendanceMode, string> = {
  offline: 'https://schema.org/OfflineEventAttendanceMode',
  online: 'https://schema.org/OnlineEventAttendanceMode',
  mixed: 'https://schema.org/MixedEventAttendanceMode',
};

export const EVENT_FIELDS = {
  showMap: {
    kind: 'flag',
    rest: 'show_map',
    description: "Whether the website shows a map of the venue on the event's page",
    restDescription: 'Whether the event should show a map or not',
    withheld: true,
    series: 'copied',
    cache: { fact: null, shownOnly: true },
    csv: { column: 'event_show_map', label: 'Event Show Map' },
    after: { rest: 'website', body: 'website', domain: 'website' },
  },
  showMapLink: {
    kind: 'flag',
    rest: 'show_map_link',
    description: "Whether the website shows a link to the venue's map",
    restDescription: 'Whether the event should show a map link or not',
    withheld: true,
    series: 'copied',
    cache: { fact: null, shownOnly: true },
    csv: { column: 'event_show_map_link', label: 'Event Show Map Link' },
  },
  hideFromListings: {
    kind: 'flag',
    rest: 'hide_from_listings',
    description: 'Readable by id, never listed',
    restDescription: 'Whether events should be hidden in the calendar view or not',
    withheld: true,
    series: 'series-wide',
    cache: { fact: 'hidden', shownOnly: false },
    csv: { column: 'event_hide', label: 'Hide Event From Event Listings' },
  },
  sticky: {
    kind: 'flag',
    rest: 'sticky',
    description: 'Sticky in the website calendar views (shown before the other events of its day)',
    restDescription: 'Whether the event should be sticky in the calendar view or not',
    withheld: true,
    series: 'copied',
    // The calendar views order a day's events by it.
    cache: { fact: null, shownOnly: false },
    csv: { column: 'event_sticky', label: 'Event Sticky in Month View' },
  },
  featured: {
    kind: 'flag',
    rest: 'featured',
    description: 'Featured: highlighted on the website and filterable with `featured`',
    restDescription: 'Whether the event should be featured on the site or not',
    withheld: true,
    series: 'copied',
    cache: { fact: 'featured', shownOnly: false },
    csv: { column: 'feature_event', label: 'Feature Event' },
  },
  attendanceMode: choice({
    rest: 'attendance_mode',
    description: 'How it is attended: offline (the default), online or mixed (TEC virtual events)',
    withheld: false,
    extension: true,
    series: 'copied',
    cache: { fact: 'attendanceMode', shownOnly: false },
    jsonLd: {
      name: 'eventAttendanceMode',
      value: (mode) => SCHEMA_ORG_ATTENDANCE_MODE[attendanceMode(mode)],
    },
    csv: { column: 'event_attendance_mode', label: 'Event Attendance Mode' },
    values: ATTENDANCE_MODES,
    default: 'offline',
    enum: {
      name: 'AttendanceMode',
      description: 'How an event is attended (TEC virtual events; schema.org eventAttendanceMode)',
      values: {
        offline: 'In person, at its venue (the default)',
        online: 'Online only, at `onlineUrl`',
        mixed: 'In person and online',
      },
    },
    after: { rest: 'event_status_reason', body: 'event_status_reason', domain: 'eventStatusReason' },
  }),
  onlineUrl: {
    kind: 'url',
    rest: 'online_url',
    description: 'Where an online or mixed event is attended (a URL; "" clears it)',
    withheld: true,
    extension: true,
    series: 'copied',
    cache: { fact: null, shownOnly: true },
    csv: { column: 'event_online_url', label: 'Event Online URL' },
    // RFC 7986's CONFERENCE: how an entry says where it is joined (an offline event's stored URL is not).
    ical: {
      property: 'CONFERENCE',
      params: 'VALUE=URI;FEATURE=VIDEO',
      carried: (event) => event.attendanceMode !== 'offline',
    },
  },
  typicalAgeRange: {
    kind: 'text',
    rest: 'typical_age_range',
    description: 'The ages it is meant for, as schema.org\'s typicalAgeRange: "7-12", "18-" ("" for any)',
    withheld: false,
    extension: true,
    example: '7-12',
    maxLength: 7,
    valid: (range) => {
      const [, from, to] = /^(\d{1,3})-(\d{1,3})?$/.exec(range) ?? [];
      return from !== undefined && (to === undefined || Number(from) <= Number(to));
    },
    invalid: 'Invalid parameter: an age range such as "7-12" or "18-".',
    series: 'copied',
    cache: { fact: null, shownOnly: true },
    jsonLd: { name: 'typicalAgeRange' },
    csv: { column: 'event_typical_age_range', label: 'Event Typical Age Range' },
  },
} as const satisfies Record<string, FieldDeclaration>;

export type Declared = typeof EVENT_FIELDS;
export type DeclaredName = keyof Declared;
export const DECLARED_NAMES = Object.keys(EVENT_FIELDS) as DeclaredName[];

/** The domain value of a field of this declaration (as written and as stored). */
type ValueOf<F> = F extends FlagField ? boolean : F extends ChoiceField<infer V> ? V : string;
/** What a write may say for it, before it is checked. */
type InputOf<F> = F extends FlagField ? boolean : string;

export type DeclaredInput = { [K in DeclaredName]?: InputOf<Declared[K]> };
export type DeclaredValues = { [K in DeclaredName]?: ValueOf<Declared[K]> };

/** The fields of a declaration whose column (of the same name) is missing or of another type. */
type ColumnMismatch<D> = {
  [K in keyof D]: K extends keyof Event ? (ValueOf<D[K]> extends Event[K] ? never : K) : K;
}[keyof D];
/** `true` when every column matches; else the names of those that do not (a compile error). */
export type ColumnsMatch<D> = [ColumnMismatch<D>] extends [never] ? true : ColumnMismatch<D>;
const columnsMatch: ColumnsMatch<Declared> = true;
void columnsMatch;

/** A compile error naming the members of `Union` that `Listed` leaves out. */
export type Unlisted<Union, Listed> = [Exclude<Union, Listed>] extends [never]
  ? true
  : Exclude<Union, Listed>;

export const declaration = (name: DeclaredName): FieldDeclaration => EVENT_FIELDS[name];

/** A value checked: the stored value, or why it is refused. */
type Checked<V> = { ok: true; value: V } | { ok: false; reason: string };

const INVALID = 'Invalid parameter.';

/** The domain check of one declared field (the API edges only read their dialect into its input type). */
export function checkField<K extends DeclaredName>(
  name: K,
  input: InputOf<Declared[K]>,
): Checked<ValueOf<Declared[K]>> {
  const field = declaration(name);
  const ok = (value: unknown) => ({ ok: true, value: value as ValueOf<Declared[K]> }) as const;
  switch (field.kind) {
    case 'flag':
      return typeof input === 'boolean' ? ok(input) : { ok: false, reason: INVALID };
    case 'url': {
      const url = String(input).trim();
      return url === '' || isUrl(url) ? ok(url) : { ok: false, reason: INVALID };
    }
    case 'choice': {
      const word = String(input).trim().toLowerCase() || field.default;
      return field.values.includes(word) ? ok(word) : { ok: false, reason: field.invalid };
    }
    case 'text': {
      const text = String(input).trim();
      return text === '' || (text.length <= field.maxLength && field.valid(text))
        ? ok(text)
        : { ok: false, reason: field.invalid };
    }
  }
}

/** The columns a write sets from the checked values (absent fields are left out). */
export function declaredColumns(values: DeclaredValues): Partial<Pick<Event, DeclaredName>> {
  return Object.fromEntries(
    DECLARED_NAMES.filter((name) => values[name] !== undefined).map((name) => [name, values[name]]),
  );
}

/** The value of an event that never set the field (its column's default): what an import without it writes. */
export function columnDefault(field: FieldDeclaration): boolean | string {
  return field.kind === 'flag' ? false : field.kind === 'choice' ? field.default : '';
}

/** How a source's dialect reads a flag and a text (each importer has its own words for yes). */
interface SourceReaders {
  flag: (value: unknown) => boolean;
  text: (value: unknown) => string;
}

/**
 * The declared fields a source's record gives (`valueOf` its value for a field, undefined when the record
 * does not have it), read as their kinds say: the input the event service then checks.
 */
export function declaredFromSource(
  valueOf: (name: DeclaredName, field: FieldDeclaration) => unknown,
  read: SourceReaders,
): DeclaredInput {
  const input: Record<string, boolean | string> = {};
  for (const name of DECLARED_NAMES) {
    const field = declaration(name);
    const value = valueOf(name, field);
    if (value === undefined) continue;
    input[name] = field.kind === 'flag' ? read.flag(value) : read.text(value);
  }
  return input as DeclaredInput;
}

/** The names of the fields of one series behaviour (`copied`, `series-wide`). */
export const namesOnSeries = (behaviour: Common['series']): DeclaredName[] =>
  DECLARED_NAMES.filter((name) => declaration(name).series === behaviour);

/**
 * `base`'s entries with `extra` inserted, each after its anchor (when absent: after the entry inserted
 * before it); an anchor `base` does not have appends it. Keeps every layer in its documented order.
 */
export function placed<T>(
  base: Record<string, T>,
  extra: ReadonlyArray<readonly [key: string, after: string | undefined, value: T]>,
): Record<string, T> {
  const entries = Object.entries(base);
  let previous: string | undefined;
  for (const [key, after, value] of extra) {
    const anchor = after ?? previous;
    const at = anchor === undefined ? -1 : entries.findIndex(([name]) => name === anchor);
    if (at < 0) entries.push([key, value]);
    else entries.splice(at + 1, 0, [key, value]);
    previous = key;
  }
  return Object.fromEntries(entries);
}

/** The declared fields in a layer: `[its key there, its anchor there, what the layer makes of it]`. */
export function declaredEntries<T>(
  layer: keyof Anchor,
  make: (name: DeclaredName, field: FieldDeclaration) => T | undefined,
  only: (field: FieldDeclaration) => boolean = () => true,
): Array<readonly [string, string | undefined, T]> {
  const rows: Array<readonly [string, string | undefined, T]> = [];
  for (const name of DECLARED_NAMES) {
    const field = declaration(name);
    if (!only(field)) continue;
    const made = make(name, field);
    if (made === undefined) continue;
    const key = layer === 'domain' ? name : field.rest;
    rows.push([key, field.after?.[layer], made] as const);
  }
  return rows;
}
