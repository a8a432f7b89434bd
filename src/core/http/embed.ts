import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { Kind, parse } from 'graphql';
import type { Context as KoaContext, Middleware } from 'koa';
import type { Config } from '../config/config.js';
import { readTrustedDocuments } from '../config/trusted-documents.js';
import type { Logger } from '../ops/logger.js';
import { NO_ROUTE, sendError, wordPressError } from '../errors/rest-errors.js';

// The embeddable calendar (web/calendar/, `<calendar-view>`) and the service's own page of it:
// - GET /embed/calendar.js: the stable address sites embed; revalidated (ETag: its content hash).
// - GET /embed/calendar.<hash>.js: the same bytes, cached for a year (the hash changes with them).
// - GET /calendar (and /<lang>/calendar): a full-screen calendar with links to the API's docs.
// - GET /favicon.<hash>.svg: the page's icon, cached for a year.
// The component's GraphQL documents are known to the server from the start (`calendarDocuments`), so
// its ids run on a first visit whatever CALENDAR_TRUSTED_DOCUMENTS says.
// The script is built by `npm run build` into dist/embed/; in a checkout that has the sources
// (tests, `npm run dev`), a missing or older build is rebuilt in memory on the first request.

/** Where the site's time zone goes in the bundle (web/calendar/calendar-view.ts reads it). */
const ZONE_MARK = '@@CALENDAR_SITE_TIMEZONE@@';
const ENTRY = 'web/calendar/calendar-view.ts';
/** The repository (src/core/http/ → ../../../) or, compiled, dist/ (dist/src/core/http/ → ../../../). */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const STABLE = '/embed/calendar.js';
const HASHED = /^\/embed\/calendar\.([0-9a-f]{20})\.js$/;
const PAGE = /^\/(?:([A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*)\/)?calendar\/?$/;
/**
 * The one write the calendar's documents may make: an RSVP, which any visitor may send anyway (the
 * tickets room applies its visibility, bounds and limits whatever document asks).
 */
const CALENDAR_WRITES = new Set(['rsvp']);
/** codegen's manifest of the component's documents (id → text), and its copy beside the built bundle. */
const DOCUMENTS = 'examples/generated/calendar-view/persisted-documents.json';
const BUILT_DOCUMENTS = 'embed/calendar-documents.json';

/**
 * The component's documents by id: codegen's manifest in a checkout (what an in-memory build bundles),
 * else the copy `npm run build` writes beside the bundle (a container has dist/ alone). Throws when
 * neither is there, the file is not a valid manifest, or a document writes anything but an RSVP: any
 * client may run these by id, and the component only reads and reserves.
 */
export function calendarDocuments(root = ROOT): Map<string, string> {
  const candidates = [
    join(root, DOCUMENTS),
    join(root, '..', DOCUMENTS),
    join(root, BUILT_DOCUMENTS),
    join(root, 'dist', BUILT_DOCUMENTS),
  ];
  const path = candidates.find((candidate) => existsSync(candidate));
  if (!path) throw new Error(`the calendar's documents are missing (${candidates.join(', ')})`);
  const documents = readTrustedDocuments(path);
  for (const [id, text] of documents) {
    const writes = parse(text).definitions.some(
      (definition) =>
        definition.kind === Kind.OPERATION_DEFINITION &&
        definition.operation === 'mutation' &&
        !definition.selectionSet.selections.every(
          (selection) => selection.kind === Kind.FIELD && CALENDAR_WRITES.has(selection.name.value),
        ),
    );
    if (writes)
      throw new Error(
        `${path}: the document of ${id} is a mutation: the calendar only reads, and reserves places (rsvp)`,
      );
  }
  return documents;
}

/** `calendarDocuments()`, or none (logged): the calendar then falls back to sending texts where it may. */
export function ownDocuments(logger: Logger): Map<string, string> {
  try {
    return calendarDocuments();
  } catch (error) {
    logger.error({ err: error }, "the calendar's GraphQL documents could not be registered");
    return new Map();
  }
}

// A calendar sheet in the page's link colour. An icon rather than `<link rel="icon" href="data:,">`:
// the page is what visitors keep in a tab and bookmark. Its address carries its content hash, so it is
// cached for a year and asked for once.
const ICON = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">' +
    '<rect x="3" y="5" width="26" height="24" rx="4" fill="#fff" stroke="#1a56a8" stroke-width="2"/>' +
    '<path d="M3 9a4 4 0 0 1 4-4h18a4 4 0 0 1 4 4v3H3z" fill="#1a56a8"/>' +
    '<path d="M10 2v6M22 2v6" stroke="#1b1b1f" stroke-width="2.5" stroke-linecap="round"/>' +
    '<path d="M8 16h4v4H8zm6 0h4v4h-4zm6 0h4v4h-4zM8 22h4v4H8zm6 0h4v4h-4z" fill="#1a56a8"/></svg>',
);
const ICON_HASH = createHash('sha256').update(ICON).digest('hex').slice(0, 20);
const ICON_PATH = `/favicon.${ICON_HASH}.svg`;
const ICON_ROUTE = /^\/favicon\.[0-9a-f]{20}\.svg$/;

/** Bundles the component with esbuild (a development dependency: only where the sources are). */
export async function buildCalendarBundle(root = ROOT): Promise<Uint8Array> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [join(root, ENTRY)],
    bundle: true,
    format: 'esm',
    target: 'es2022',
    minify: true,
    write: false,
    legalComments: 'eof',
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.contents;
}

function newest(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((entry) => newest(join(path, entry))));
}

/**
 * The built bundle; in a checkout (the sources beside src/, or beside dist/), rebuilt in memory when
 * they are newer than it or it is missing. A container has dist/ alone: the build is all there is.
 */
async function bundle(): Promise<Buffer> {
  const built = [join(ROOT, 'embed/calendar.js'), join(ROOT, 'dist/embed/calendar.js')].find((path) =>
    existsSync(path),
  );
  const checkout = [ROOT, join(ROOT, '..')].find((root) => existsSync(join(root, ENTRY)));
  if (!checkout) {
    if (!built) throw new Error(`the calendar script is not built (${join(ROOT, 'embed/calendar.js')})`);
    return readFileSync(built);
  }
  const generated = join(checkout, 'examples/generated/calendar-view');
  const changed = Math.max(
    newest(join(checkout, 'web/calendar')),
    existsSync(generated) ? newest(generated) : 0,
  );
  if (built && statSync(built).mtimeMs >= changed) return readFileSync(built);
  return Buffer.from(await buildCalendarBundle(checkout));
}

interface Asset {
  body: Buffer;
  gzip: Buffer;
  hash: string;
}

async function loadAsset(siteTimezone: string): Promise<Asset> {
  const body = Buffer.from((await bundle()).toString('utf8').replaceAll(ZONE_MARK, siteTimezone));
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 20);
  return { body, gzip: gzipSync(body, { level: 9 }), hash };
}

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(asset: Asset, config: Config, lang: string | undefined): string {
  const graphiql = config.trustedDocuments ? '' : '<a href="/graphql">GraphiQL</a> · ';
  const langAttribute = lang ? ` lang="${escapeHtml(lang)}"` : '';
  return `<!doctype html>
<html lang="${escapeHtml(lang ?? 'en')}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Calendar</title>
<link rel="icon" href="${ICON_PATH}" type="image/svg+xml">
<script type="module" src="/embed/calendar.${asset.hash}.js"></script>
<style>
  html, body { margin: 0; min-height: 100%; font-family: system-ui, sans-serif; color: #1b1b1f; background: #fff; }
  body { display: flex; flex-direction: column; min-height: 100vh; }
  header { display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; align-items: baseline; justify-content: space-between; padding: 0.6rem 1rem; border-bottom: 1px solid #c9ccd1; }
  header h1 { margin: 0; font-size: 1.1rem; }
  header a { color: #1a56a8; }
  main { flex: 1; padding: 1rem; }
  footer { padding: 0.6rem 1rem; border-top: 1px solid #c9ccd1; font-size: 0.9rem; }
  footer a { color: #1a56a8; }
  calendar-view { display: block; min-height: 52rem; max-width: 80rem; margin: 0 auto; }
</style>
</head>
<body>
<header>
  <h1>Calendar</h1>
  <nav aria-label="API">${graphiql}<a href="/calendar/events/v1/docs">REST API docs</a></nav>
</header>
<main>
  <calendar-view view="month" filter-bar live${langAttribute}></calendar-view>
</main>
<footer><a href="/calendar/events/v1/events.ics">Subscribe to the calendar (iCalendar)</a></footer>
</body>
</html>
`;
}

function sendIcon(ctx: KoaContext): void {
  ctx.set('Content-Type', 'image/svg+xml');
  ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
  ctx.set('X-Content-Type-Options', 'nosniff');
  // Opened on its own, an SVG is a document: this one may run and load nothing.
  ctx.set('Content-Security-Policy', "default-src 'none'");
  ctx.body = ICON;
}

/** The /embed, /calendar and favicon routes. */
export function embedRoutes(config: Config, logger: Logger): Middleware {
  // Built (or read) once per app, on the first request that needs it: an app that never serves the
  // calendar never loads esbuild.
  let asset: Promise<Asset> | undefined;
  const load = () =>
    (asset ??= loadAsset(config.siteTimezone).catch((error: unknown) => {
      asset = undefined;
      throw error;
    }));

  const sendScript = (ctx: KoaContext, { body, gzip, hash }: Asset, immutable: boolean) => {
    ctx.set('Content-Type', 'text/javascript; charset=utf-8');
    ctx.set(
      'Cache-Control',
      immutable ? 'public, max-age=31536000, immutable' : 'public, max-age=300, must-revalidate',
    );
    ctx.set('ETag', `"${hash}"`);
    ctx.set('Vary', 'Accept-Encoding');
    // Any site may load it: a module script is fetched in CORS mode.
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('Cross-Origin-Resource-Policy', 'cross-origin');
    ctx.set('X-Content-Type-Options', 'nosniff');
    if (
      ctx
        .get('if-none-match')
        .split(/\s*,\s*/)
        .includes(`"${hash}"`)
    ) {
      ctx.status = 304;
      return;
    }
    const compressed = ctx.acceptsEncodings('gzip', 'identity') === 'gzip';
    if (compressed) ctx.set('Content-Encoding', 'gzip');
    ctx.body = compressed ? gzip : body;
  };

  return async (ctx, next) => {
    const hashed = HASHED.exec(ctx.path);
    const pageMatch = PAGE.exec(ctx.path);
    const icon = ICON_ROUTE.test(ctx.path);
    if (ctx.path !== STABLE && !hashed && !pageMatch && !icon) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD')
      return sendError(ctx, NO_ROUTE(405), { Allow: 'GET, HEAD' });
    // An older hash: the current icon lives at another address now.
    if (icon) return ctx.path === ICON_PATH ? sendIcon(ctx) : sendError(ctx, NO_ROUTE());
    let current: Asset;
    try {
      current = await load();
    } catch (error) {
      logger.error({ err: error }, 'the calendar script could not be loaded');
      return sendError(
        ctx,
        wordPressError(503, 'calendar_unavailable', 'The calendar script is not built: run `npm run build`.'),
        { 'Retry-After': '60' },
      );
    }
    if (hashed) {
      // An older hash: the current script lives at another address now.
      if (hashed[1] !== current.hash) return sendError(ctx, NO_ROUTE());
      return sendScript(ctx, current, true);
    }
    if (ctx.path === STABLE) return sendScript(ctx, current, false);
    ctx.set('Cache-Control', 'no-cache');
    ctx.set(
      'Content-Security-Policy',
      "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'self'",
    );
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = page(current, config, pageMatch?.[1]);
  };
}
