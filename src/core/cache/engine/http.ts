import type { Context as KoaContext } from 'koa';
import { codedEtag } from '../content-coding.js';
import type { Alias, Entry } from './entries.js';

// The HTTP side of the response cache: the headers an entry and an alias keep from an answer, and the
// representation, validators and caching headers of what it sends.

/** Headers an entry never keeps: they belong to one exchange. */
const EXCHANGE_HEADERS = new Set(['content-length', 'date', 'connection', 'set-cookie', 'x-request-id']);

/** Headers of a computed answer that an entry never keeps: its plain representation's are kept. */
const ENTRY_SKIPPED = new Set([...EXCHANGE_HEADERS, 'x-cache', 'content-encoding']);

/** Headers of a final answer that an alias never keeps: they are set per exchange. */
const ALIAS_SKIPPED = new Set([...EXCHANGE_HEADERS, 'x-cache', 'vary']);

/** The answer's headers but `skipped`, each as one value. */
function keptHeaders(ctx: KoaContext, skipped: ReadonlySet<string>): Array<[string, string]> {
  const headers: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(ctx.response.headers)) {
    // CORS headers answer the requesting origin: the policy sets them on every request, hit or miss.
    if (value === undefined || skipped.has(name) || name.startsWith('access-control-')) continue;
    headers.push([name, Array.isArray(value) ? value.join(', ') : String(value)]);
  }
  return headers;
}

/** The headers an entry keeps from a computed answer: its plain representation's, for any exchange. */
export function entryHeaders(ctx: KoaContext): Record<string, string> {
  return Object.fromEntries(keptHeaders(ctx, ENTRY_SKIPPED));
}

/** The headers and `Vary` fields an alias keeps from a final answer (`Origin` aside: CORS sets it). */
export function aliasHeaders(ctx: KoaContext): Pick<Alias, 'headers' | 'vary'> {
  const vary = String(ctx.response.get('vary') || '')
    .split(',')
    .map((field) => field.trim())
    .filter((field) => field !== '' && field.toLowerCase() !== 'origin');
  return { headers: keptHeaders(ctx, ALIAS_SKIPPED), vary };
}

/**
 * An alias's headers for the entry that replaced `before` by a refresh: each header the refresh changed
 * (validator, totals) takes its new value, the validator in the alias's representation.
 */
export function followHeaders(alias: Alias, before: Entry, after: Entry): Array<[string, string]> {
  return alias.headers.map(([name, value]) => {
    const now = after.headers[name];
    if (now === undefined || now === before.headers[name]) return [name, value];
    return [name, name === 'etag' && alias.coded ? codedEtag(now) : now];
  });
}

/** The body of a 200 answer as sent: gzip-coded (with that representation's entity tag) or plain. */
export function sendRepresentation(ctx: KoaContext, body: Buffer, coded: boolean): void {
  if (coded) {
    ctx.set('Content-Encoding', 'gzip');
    ctx.set('ETag', codedEtag(ctx.response.get('etag')));
  }
  ctx.body = body;
}

/** Cache-Control and Vary for a cacheable read; 304 without a body when the client's copy is current. */
export function conditional(ctx: KoaContext, shared: boolean): void {
  const anonymous = !ctx.get('authorization');
  ctx.set(
    'Cache-Control',
    anonymous && shared ? 'public, max-age=0, must-revalidate' : 'private, max-age=0, must-revalidate',
  );
  ctx.vary('Authorization');
  ctx.vary('Accept');
  ctx.vary('Accept-Encoding');
  if (ctx.fresh) {
    ctx.status = 304;
    ctx.body = null;
  }
}
