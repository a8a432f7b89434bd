import type { Middleware } from 'koa';
import { API_PREFIX } from '../rules/urls.js';
import { gunzipped } from '../cache/content-coding.js';

// WordPress REST "global parameters", which its clients rely on (`@wordpress/api-fetch` sends every
// PUT, PATCH and DELETE as a POST with `X-HTTP-Method-Override`):
// - `_method=DELETE|PUT|PATCH|GET` (query) or the `X-HTTP-Method-Override` header turn a POST into
//   that method before routing;
// - `_fields=a,b.c` keeps only those fields of the answer (nested paths; in lists, of each item);
// - `_envelope` answers 200 with `{ body, status, headers }` (errors too).
// The REST routes below never see these parameters.

const OVERRIDABLE = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
/** Headers a route sets, as WordPress puts them in an envelope (not the server's own). */
const ENVELOPE_HEADERS = ['x-tec-total', 'x-tec-totalpages', 'link', 'allow', 'location', 'last-modified'];
const ENVELOPE_NAMES: Record<string, string> = {
  'x-tec-total': 'X-TEC-Total',
  'x-tec-totalpages': 'X-TEC-TotalPages',
  link: 'Link',
  allow: 'Allow',
  location: 'Location',
  'last-modified': 'Last-Modified',
};

const API_PATH = new RegExp(`^(?:/[^/]+)?${API_PREFIX}(?:/|$)`);

interface FieldTree {
  [field: string]: FieldTree | true;
}

/** `a,b.c,b.d` → `{ a: true, b: { c: true, d: true } }` (a whole field wins over its parts). */
function fieldTree(list: string): FieldTree {
  const tree: FieldTree = {};
  for (const path of list
    .split(',')
    .map((field) => field.trim())
    .filter(Boolean)) {
    let node = tree;
    const parts = path.split('.');
    parts.forEach((part, i) => {
      if (node[part] === true) return;
      if (i === parts.length - 1) node[part] = true;
      else node = (node[part] = (node[part] as FieldTree | undefined) ?? {}) as FieldTree;
    });
  }
  return tree;
}

/** The value with only the fields of `tree`; arrays keep their items, each filtered. */
function pickFields(value: unknown, tree: FieldTree): unknown {
  if (Array.isArray(value)) return value.map((item) => pickFields(item, tree));
  if (value === null || typeof value !== 'object') return value;
  const picked: Record<string, unknown> = {};
  for (const [key, sub] of Object.entries(tree)) {
    if (!(key in value)) continue;
    const field = (value as Record<string, unknown>)[key];
    picked[key] = sub === true ? field : pickFields(field, sub);
  }
  return picked;
}

function queryValue(querystring: string, name: string): string | null {
  const value = new URLSearchParams(querystring).get(name);
  return value;
}

export function wordPressGlobals(): Middleware {
  return async (ctx, next) => {
    if (!API_PATH.test(ctx.path)) return next();
    const query = ctx.querystring;
    if (ctx.method === 'POST') {
      const override = (queryValue(query, '_method') ?? ctx.get('X-HTTP-Method-Override'))
        .trim()
        .toUpperCase();
      if (OVERRIDABLE.has(override)) ctx.method = override;
    }
    const fields = queryValue(query, '_fields');
    const envelope = queryValue(query, '_envelope') !== null;
    await next();
    if (fields === null && !envelope) return;
    if (!ctx.response.is('json') || (typeof ctx.body !== 'string' && !Buffer.isBuffer(ctx.body))) return;
    // Reshaped, the answer is sent plain: coded bytes (any answer the cache's `serve` coded) are read as
    // text first.
    const coded = ctx.response.get('Content-Encoding') === 'gzip';
    let data: unknown = JSON.parse(coded ? gunzipped(ctx.body as Buffer).toString('utf8') : String(ctx.body));
    if (coded) ctx.remove('Content-Encoding');
    if (fields !== null && ctx.status < 400) data = pickFields(data, fieldTree(fields));
    // The bytes differ from what the validators describe.
    ctx.remove('ETag');
    ctx.set('Cache-Control', 'private, no-store');
    if (envelope) {
      const headers: Record<string, string> = {};
      for (const name of ENVELOPE_HEADERS) {
        const value = ctx.response.get(name);
        if (value) headers[ENVELOPE_NAMES[name]!] = String(value);
      }
      data = { body: data, status: ctx.status, headers };
      ctx.status = 200;
    }
    ctx.body = JSON.stringify(data);
  };
}
