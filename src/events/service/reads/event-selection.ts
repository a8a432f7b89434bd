import { hash } from 'node:crypto';
import {
  type Media,
  type Organizer,
  Prisma,
  type Term,
  type User,
  type Venue,
} from '../../../generated/sqlite/client.js';

// What a Pothos selection of events (Prisma's `include` or `select`) asks for, read once per selection
// object: the event's scalars, and the relation families the event reads load by statements of their
// own (its image; its venues with their images; its organizers with theirs; its terms with their
// parents). A family asking for more (a filter, another order, a relation beyond them) stays with
// Prisma, as does every other relation.

export type Tree = Record<string, unknown>;
export interface EventSelection {
  include?: Tree;
  select?: Tree;
}
export type Row = Record<string, unknown>;

export const isTree = (value: unknown): value is Tree =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The scalars a JSON copy of a row gives in another type than Prisma's: dates (text) and, on SQLite,
 * booleans (0 or 1).
 */
export type Conversions = Readonly<Record<string, 'date' | 'boolean'>>;
type FieldsOf<T, V> = { [K in keyof T]-?: NonNullable<T[K]> extends V ? K : never }[keyof T];
/** Every date and boolean field of `T`, each with its kind: the compiler holds the list to the model. */
type ConversionsOf<T> = {
  [K in FieldsOf<T, Date | boolean>]: NonNullable<T[K]> extends Date ? 'date' : 'boolean';
};

/** A model as these statements read it: its scalars, and the relations they join. */
export interface Model {
  scalars: readonly string[];
  relations: Readonly<Record<string, Model>>;
  conversions: Conversions;
}
/** What a selection asks of a record: those of its scalars, and those relations. */
export interface Shape {
  fields: readonly string[];
  relations: Record<string, Shape>;
  conversions: Conversions;
}

const model = (
  fields: Record<string, string>,
  conversions: Conversions,
  relations: Record<string, Model> = {},
): Model => ({ scalars: Object.freeze(Object.values(fields)), relations, conversions });
export const MEDIA = model(Prisma.MediaScalarFieldEnum, { createdAt: 'date' } satisfies ConversionsOf<Media>);
const USER = model(Prisma.UserScalarFieldEnum, { createdAt: 'date' } satisfies ConversionsOf<User>);
const PLACE = { publishedAt: 'date', modifiedAt: 'date' } as const;
const VENUE_CONVERSIONS = {
  ...PLACE,
  showMap: 'boolean',
  showMapLink: 'boolean',
} as const satisfies ConversionsOf<Venue>;

/**
 * The shape a Prisma selection of a record asks for (`true`, `{ select }` or `{ include }`), or null when
 * it asks for more than the model's scalars and relations (a filter, an order, another relation).
 */
export function shapeOf(spec: unknown, of: Model): Shape | null {
  if (spec === true) return { fields: of.scalars, relations: {}, conversions: of.conversions };
  if (!isTree(spec)) return null;
  const { select, include, ...other } = spec;
  if (Object.keys(other).length || (select !== undefined && include !== undefined)) return null;
  const tree = select ?? include ?? {};
  if (!isTree(tree)) return null;
  const selected: string[] = [];
  const relations: Record<string, Shape> = {};
  for (const [key, value] of Object.entries(tree)) {
    if (value === false || value === undefined) continue;
    const relation = of.relations[key];
    if (relation) {
      const nested = shapeOf(value, relation);
      if (!nested) return null;
      relations[key] = nested;
    } else if (value === true && select !== undefined && of.scalars.includes(key)) selected.push(key);
    else return null;
  }
  return { fields: select === undefined ? of.scalars : selected, relations, conversions: of.conversions };
}

/** The columns `fields` are read as under `prefix`, named once per list of fields (a page reads many rows). */
const prefixedNames = new WeakMap<readonly string[], Map<string, readonly string[]>>();
function prefixed(fields: readonly string[], prefix: string): readonly string[] {
  let byPrefix = prefixedNames.get(fields);
  if (!byPrefix) prefixedNames.set(fields, (byPrefix = new Map()));
  let names = byPrefix.get(prefix);
  if (!names) byPrefix.set(prefix, (names = fields.map((field) => prefix + field)));
  return names;
}

/** `fields` of `row`, each read from its column under `prefix`. */
export const pick = (row: Row, fields: readonly string[], prefix: string) => {
  const names = prefix ? prefixed(fields, prefix) : fields;
  const record: Row = {};
  for (let i = 0; i < fields.length; i++) record[fields[i]!] = row[names[i]!];
  return record;
};

/** The links of an event to one kind of record: the link, the record, and the record's one relation. */
export interface LinkFamily {
  /** The event's relation (`venues`), its link table and the key of the linked record in it. */
  relation: string;
  table: string;
  key: string;
  /** The record's field on the link, its table, and the one relation of the record joined with it. */
  record: string;
  recordTable: string;
  nested: { key: string; table: string; column: string };
  link: Model;
}

function linkFamily(
  relation: string,
  table: string,
  key: string,
  record: { name: string; table: string; model: Model },
  nested: { key: string; table: string; column: string },
): LinkFamily {
  return {
    relation,
    table,
    key,
    record: record.name,
    recordTable: record.table,
    nested,
    link: {
      scalars: ['eventId', key, 'position'],
      relations: { [record.name]: record.model },
      conversions: {},
    },
  };
}

const TERM_CONVERSIONS = {} as const satisfies ConversionsOf<Term>;
const TERM = model(Prisma.TermScalarFieldEnum, TERM_CONVERSIONS);
export const LINK_FAMILIES: readonly LinkFamily[] = [
  linkFamily(
    'venues',
    'EventVenue',
    'venueId',
    {
      name: 'venue',
      table: 'Venue',
      model: model(Prisma.VenueScalarFieldEnum, VENUE_CONVERSIONS, { image: MEDIA }),
    },
    { key: 'image', table: 'Media', column: 'imageId' },
  ),
  linkFamily(
    'organizers',
    'EventOrganizer',
    'organizerId',
    {
      name: 'organizer',
      table: 'Organizer',
      model: model(Prisma.OrganizerScalarFieldEnum, PLACE satisfies ConversionsOf<Organizer>, {
        image: MEDIA,
      }),
    },
    { key: 'image', table: 'Media', column: 'imageId' },
  ),
  linkFamily(
    'terms',
    'EventTerm',
    'termId',
    {
      name: 'term',
      table: 'Term',
      model: model(Prisma.TermScalarFieldEnum, TERM_CONVERSIONS, { parent: TERM }),
    },
    { key: 'parent', table: 'Term', column: 'parentId' },
  ),
];

/** The links' shape when they are ordered by position (the only order these statements give). */
function linkShape(family: LinkFamily, spec: unknown): Shape | null {
  if (!isTree(spec)) return null;
  const { orderBy, ...rest } = spec;
  if (!isTree(orderBy) || Object.keys(orderBy).length !== 1 || orderBy.position !== 'asc') return null;
  return shapeOf(rest, family.link);
}

export const columns = (alias: string, scalars: readonly string[], prefix: string) =>
  scalars.map((name) => `${alias}."${name}" AS "${prefix}${name}"`).join(', ');

/** How a selection is read: its families apart, and what a kept record of it is keyed by. */
export interface ReadPlan {
  mode: 'include' | 'select';
  /** The selection less the families below. */
  tree: Tree;
  image: Shape | null;
  links: Array<{ family: LinkFamily; shape: Shape }>;
  /**
   * The selection's hash, when every part of it is one of the event's scalars or a family above: its
   * records then show only rows whose writes name them (`recordDependencies`), and can be kept.
   */
  keptAs: string | null;
  /**
   * The author as the selection asks for it (its scalars, left in `tree` for Prisma's reads), when the
   * author is all the selection asks for beyond the kept parts: one page statement then reads it all.
   */
  author: Shape | null;
  /** Whether the page statement (`event-rows.ts`) reads the whole selection. */
  statementReads: boolean;
  /** The selection as given (Prisma reads it whole on PostgreSQL). */
  whole: Tree;
}

export const EVENT_SCALARS = new Set<string>(Object.values(Prisma.EventScalarFieldEnum));
/** Plans by their selection's text: Pothos builds a new selection object for every request. */
const plans = new Map<string, ReadPlan | null>();
const MAX_PLANS = 500;

/** The plan of a selection (null: Prisma reads it as it is), worked out once per selection. */
export function planOf(selection: EventSelection): ReadPlan | null {
  const key = JSON.stringify(selection);
  let plan = plans.get(key);
  if (plan === undefined) {
    // Selections come from queries' texts, which clients choose: the plans kept are bounded.
    if (plans.size >= MAX_PLANS) plans.clear();
    plans.set(key, (plan = makePlan(selection, key)));
  }
  return plan;
}

function makePlan(selection: EventSelection, text: string): ReadPlan | null {
  const mode = selection.include ? 'include' : selection.select ? 'select' : null;
  if (!mode) return null;
  const tree: Tree = { ...selection[mode] };
  let keepable = true;
  const image = tree.image === undefined || tree.image === false ? null : shapeOf(tree.image, MEDIA);
  if (image) delete tree.image;
  const links: ReadPlan['links'] = [];
  for (const family of LINK_FAMILIES) {
    const spec = tree[family.relation];
    const shape = spec === undefined || spec === false ? null : linkShape(family, spec);
    if (!shape) continue;
    links.push({ family, shape });
    delete tree[family.relation];
  }
  const author = tree.author === undefined || tree.author === false ? null : shapeOf(tree.author, USER);
  let others = 0;
  for (const [key, value] of Object.entries(tree))
    if (
      value !== false &&
      value !== undefined &&
      !(mode === 'select' && value === true && EVENT_SCALARS.has(key))
    ) {
      keepable = false;
      if (!(key === 'author' && author)) others += 1;
    }
  const keptAs = keepable ? hash('sha1', text, 'base64url') : null;
  return { mode, tree, image, links, keptAs, author, statementReads: others === 0, whole: selection[mode]! };
}

/** The keys a read adds to a selection (families attach by them, kept records are keyed by them). */
export const ATTACHING_KEYS = ['id', 'imageId', 'modifiedAt'] as const;

export const EVENT_SCALAR_LIST: readonly string[] = [...EVENT_SCALARS];
