import { invalidParams } from '../../errors/errors.js';
import { DEFAULT_PER_PAGE, MAX_PER_PAGE } from '../../rules/paging.js';

// Cursor (keyset) paging over a list's own order: a cursor holds the sort key of one record, and the
// next page is "the records after that key" — so records inserted or removed between two page loads
// neither skip nor repeat the others, unlike an offset. Every order ends with the unique `id`.

type Direction = 'asc' | 'desc';
/** One column of a list's order, and how its values travel in a cursor. */
export interface SortKey {
  field: string;
  direction: Direction;
  kind: 'int' | 'text' | 'date';
}

/** Relay's paging arguments, as a connection field receives them. */
export interface CursorArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

export type Value = number | string | Date;
type Condition = Record<string, unknown>;

/** What to fetch for one connection page: the bound conditions, the order and how many rows. */
interface KeysetWindow {
  /** `after`/`before` as conditions to AND with the list's own `where` (empty: none). */
  bounds: Condition[];
  orderBy: Array<Record<string, Direction>>;
  /** One more than the page, to learn whether more records follow. */
  take: number;
  size: number;
  backward: boolean;
  args: CursorArgs;
  /** The decoded sort keys of `after` and `before`, for lists that write their own SQL. */
  afterKey: Value[] | null;
  beforeKey: Value[] | null;
}

interface Edge<T> {
  cursor: string;
  node: T;
}

export interface ConnectionPage<T> {
  edges: Array<Edge<T>>;
  pageInfo: {
    hasNextPage: boolean;
    hasPreviousPage: boolean;
    startCursor: string | null;
    endCursor: string | null;
  };
}

/** The sort keys of a Prisma order (`[{ localStart: 'asc' }, { id: 'asc' }]`), each column's kind named. */
export function sortKeysOf(
  orderBy: ReadonlyArray<Record<string, unknown>>,
  kinds: Readonly<Record<string, SortKey['kind']>>,
): SortKey[] {
  return orderBy.flatMap((entry) =>
    Object.entries(entry).map(([field, direction]) => {
      const kind = kinds[field];
      if (!kind || (direction !== 'asc' && direction !== 'desc'))
        throw new Error(`No cursor for the order on ${field}`);
      return { field, direction, kind };
    }),
  );
}

export const flip = (direction: Direction): Direction => (direction === 'asc' ? 'desc' : 'asc');

function encodeCursor(keys: readonly SortKey[], row: object): string {
  const values = keys.map(({ field, kind }) => {
    const value = (row as Record<string, unknown>)[field];
    return kind === 'date' ? (value as Date).toISOString() : value;
  });
  return Buffer.from(JSON.stringify(values), 'utf8').toString('base64url');
}

/** The sort key a cursor holds, checked against the list's order: anything else is a 400 naming `param`. */
function decodeCursor(keys: readonly SortKey[], cursor: string, param: string): Value[] {
  const refuse = () => invalidParams({ [param]: 'Not a cursor of this list.' });
  let values: unknown;
  try {
    values = /^[A-Za-z0-9_-]{1,2000}$/.test(cursor)
      ? JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
      : null;
  } catch {
    throw refuse();
  }
  if (!Array.isArray(values) || values.length !== keys.length) throw refuse();
  return keys.map(({ kind }, i) => {
    const value: unknown = values[i];
    if (kind === 'int' && Number.isSafeInteger(value)) return value as number;
    if (kind === 'text' && typeof value === 'string') return value;
    if (kind === 'date' && typeof value === 'string' && !Number.isNaN(Date.parse(value)))
      return new Date(value);
    throw refuse();
  });
}

/**
 * Rows strictly beyond `values` in the order of `keys` (as Prisma conditions): for keys (a, id),
 * `a > v OR (a = v AND id > w)`, each comparison turned by its column's direction.
 */
function beyond(keys: readonly SortKey[], values: readonly Value[], forward: boolean): Condition {
  return {
    OR: keys.map((key, i) => {
      const operator = (forward ? key.direction : flip(key.direction)) === 'asc' ? 'gt' : 'lt';
      return {
        AND: [
          ...keys.slice(0, i).map((equal, j) => ({ [equal.field]: values[j] })),
          { [key.field]: { [operator]: values[i] } },
        ],
      };
    }),
  };
}

/** The window of one connection page, from Relay's arguments (`first`/`after` or `last`/`before`). */
export function keysetWindow(keys: readonly SortKey[], args: CursorArgs): KeysetWindow {
  const { first, last, after, before } = args;
  const sizes: Record<string, string> = {};
  if (first != null && last != null) sizes.last = 'Give first or last, not both.';
  for (const [name, value] of [
    ['first', first],
    ['last', last],
  ] as const)
    if (value != null && (!Number.isInteger(value) || value < 0)) sizes[name] = 'Invalid parameter.';
  if (Object.keys(sizes).length) throw invalidParams(sizes);
  const backward = last != null;
  // As `perPage`: larger pages are lowered to the maximum rather than refused.
  const size = Math.min(backward ? last : (first ?? DEFAULT_PER_PAGE), MAX_PER_PAGE);
  const afterKey = after ? decodeCursor(keys, after, 'after') : null;
  const beforeKey = before ? decodeCursor(keys, before, 'before') : null;
  const bounds: Condition[] = [];
  if (afterKey) bounds.push(beyond(keys, afterKey, true));
  if (beforeKey) bounds.push(beyond(keys, beforeKey, false));
  const orderBy = keys.map(({ field, direction }) => ({
    [field]: backward ? flip(direction) : direction,
  }));
  return { bounds, orderBy, take: size + 1, size, backward, args, afterKey, beforeKey };
}

/** The page's edges (in list order) and where it stands, from the rows the window fetched. */
export function connectionPage<T extends object, N>(
  keys: readonly SortKey[],
  window: KeysetWindow,
  rows: readonly T[],
  toNode: (row: T) => N,
): ConnectionPage<N> {
  const more = rows.length > window.size;
  const kept = rows.slice(0, window.size);
  if (window.backward) kept.reverse();
  const edges = kept.map((row) => ({ cursor: encodeCursor(keys, row), node: toNode(row) }));
  return {
    edges,
    pageInfo: {
      // The cursor's own record lies on the other side of the page (the Relay spec lets a server
      // answer from what it knows without another query).
      hasNextPage: window.backward ? Boolean(window.args.before) : more,
      hasPreviousPage: window.backward ? more : Boolean(window.args.after),
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
  };
}
