// A small typed REST client: openapi-fetch over the types openapi-typescript writes from the OpenAPI
// document `/doc` serves (`npm run codegen`: scripts/schema/rest-client-types.ts). Paths, parameters and
// answers are checked by TypeScript against that document: a list's `total` and `events`, an event's
// `title` are typed, and the JSON routes answer JSON only (iCalendar is the `.ics` routes').
//
//   npm run codegen && npx tsx examples/rest-client.ts http://localhost:4000/calendar/events/v1
import { pathToFileURL } from 'node:url';
import createClient from 'openapi-fetch';
import type { components, paths } from './generated/rest-api.js';

export type RestEvent = components['schemas']['TecEvent'];
export type RestSingleEvent = components['schemas']['TecSingleEvent'];
export type WordPressError = components['schemas']['WordPressError'];
export type EventListQuery = NonNullable<paths['/events']['get']['parameters']['query']>;

/** The service refused the request: the WordPress error it answered, and its HTTP status. */
export class RestError extends Error {
  constructor(
    readonly status: number,
    readonly error: WordPressError,
  ) {
    super(`${status} ${error.code}: ${error.message}`);
  }
}

export interface RestClientOptions {
  /** A login and one of its application passwords (HTTP Basic). */
  credentials?: { login: string; password: string };
  fetch?: (request: Request) => Promise<Response>;
}

/** What openapi-fetch answers: the typed body, or the typed error. */
function unwrap<T>(result: { data?: T; error?: WordPressError; response: Response }): T {
  if (result.data !== undefined) return result.data;
  throw new RestError(
    result.response.status,
    result.error ?? { code: 'unknown', message: result.response.statusText, data: { status: 0 } },
  );
}

export function createRestClient(apiRoot: string, options: RestClientOptions = {}) {
  const { credentials } = options;
  const basic = credentials && Buffer.from(`${credentials.login}:${credentials.password}`).toString('base64');
  const client = createClient<paths>({
    baseUrl: apiRoot.replace(/\/+$/, ''),
    // Lists as `a=1,2`, as `/doc` describes them (`style: form, explode: false`).
    querySerializer: { array: { style: 'form', explode: false } },
    ...(options.fetch && { fetch: options.fetch }),
    headers: basic ? { Authorization: `Basic ${basic}` } : {},
  });
  return {
    /** A page of the event list, with the envelope's `total` and `total_pages`. */
    events: async (query: EventListQuery = {}) => unwrap(await client.GET('/events', { params: { query } })),
    event: async (id: number) =>
      unwrap(await client.GET('/events/{id}', { params: { path: { id } } })) satisfies RestSingleEvent,
    eventBySlug: async (slug: string) =>
      unwrap(await client.GET('/events/by-slug/{slug}', { params: { path: { slug } } })),
  };
}

async function main(apiRoot: string): Promise<void> {
  const rest = createRestClient(apiRoot);
  const page = await rest.events({ per_page: 3 });
  console.log(`${page.total} upcoming events (${page.total_pages} pages)`);
  for (const event of page.events) console.log(`- ${event.start_date}  ${event.title}  (/${event.slug})`);
  const first = page.events[0];
  if (first) {
    const single = await rest.event(first.id);
    const bySlug = await rest.eventBySlug(single.slug);
    console.log(`#${single.id} by slug is #${bySlug.id}: ${bySlug.title}`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main(process.argv[2] ?? 'http://localhost:4000/calendar/events/v1');
}
