import { createHash } from 'node:crypto';
import type { Context as KoaContext } from 'koa';
import { JSON_CONTENT_TYPE } from '../errors/rest-errors.js';
import type { RestRoute } from './route-table.js';

// The answer as the route declares it: status, headers filled from the result, the reference's
// omitted keys, documents (iCalendar) with their own validator.

export function sendJson(ctx: KoaContext, body: unknown, allow: string): void {
  ctx.status = 200;
  ctx.set('Allow', allow);
  ctx.type = JSON_CONTENT_TYPE;
  ctx.body = JSON.stringify(body);
}

/** The result without the keys the reference omits (rather than sending `null`) when they have no value. */
export function withoutOmittedNulls(route: RestRoute, result: unknown): unknown {
  if (!route.omitWhenNull || !isRecord(result)) return result;
  const omitted = route.omitWhenNull.filter((key) => result[key] === null);
  if (!omitted.length) return result;
  const kept = { ...result };
  for (const key of omitted) delete kept[key];
  return kept;
}

/**
 * A successful operation's answer. `result` is its value and `json` the same value serialised, sent
 * as it is (`withoutOmittedNulls` already applied to both).
 */
export function sendResult(
  ctx: KoaContext,
  route: RestRoute,
  result: unknown,
  json: string,
  allow: string,
): void {
  const record = isRecord(result) ? result : null;
  if (record && route.document) return sendDocument(ctx, route.document, record, allow);
  if (record) {
    for (const [header, key] of Object.entries(route.headers ?? {})) ctx.set(header, String(record[key]));
    const location = route.locationFrom
      ?.split('.')
      .reduce<unknown>((value, key) => (isRecord(value) ? value[key] : undefined), record);
    if (typeof location === 'string') ctx.set('Location', location);
    // Single records say when they last changed (lists have no such date).
    const modified = record.modified_utc;
    if (
      (ctx.method === 'GET' || ctx.method === 'HEAD') &&
      typeof modified === 'string' &&
      !('events' in record)
    ) {
      const date = new Date(`${modified.replace(' ', 'T')}Z`);
      if (!Number.isNaN(date.getTime())) ctx.set('Last-Modified', date.toUTCString());
    }
  }
  ctx.status = route.status ?? 200;
  ctx.set('Allow', allow);
  ctx.type = JSON_CONTENT_TYPE;
  ctx.body = json;
}

/** A document route's body, with a strong ETag so that polling clients get 304 while nothing changed. */
function sendDocument(
  ctx: KoaContext,
  document: NonNullable<RestRoute['document']>,
  record: Record<string, unknown>,
  allow: string,
): void {
  const body = String(record[document.bodyKey] ?? '');
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  ctx.set('Allow', allow);
  ctx.set('ETag', etag);
  ctx.set('Cache-Control', 'no-cache');
  const filename = document.filenameKey ? record[document.filenameKey] : undefined;
  if (typeof filename === 'string')
    ctx.set('Content-Disposition', `${document.disposition ?? 'inline'}; filename="${filename}"`);
  const candidates = (ctx.get('If-None-Match') || '').split(',').map((tag) => tag.trim().replace(/^W\//, ''));
  if (candidates.includes(etag) || candidates.includes('*')) {
    ctx.status = 304;
    return;
  }
  ctx.status = 200;
  ctx.type = document.contentType;
  ctx.body = body;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
