import cors from '@koa/cors';
import type { Middleware } from 'koa';
import type { RestRoute } from '../rest/route-table.js';
import { API_PREFIX } from '../rules/urls.js';

// One CORS policy for REST and GraphQL, as WordPress sends it on its REST API: an allowed origin is
// echoed with credentials and `Vary: Origin`; the route's own methods are advertised; the paging and
// `Allow` headers (and the API discovery headers) are exposed. Origins come from a setting (default: none). `*` lets any origin read
// anonymously but never with credentials — a reflected origin with credentials would let every site
// act as the visitor.

const ALLOW_HEADERS = [
  'Authorization',
  'Content-Type',
  'X-WP-Nonce',
  'X-HTTP-Method-Override',
  'If-Match',
  'If-None-Match',
  // A reservation's secret (tickets' `/rsvp`), sent as a header to stay out of URLs.
  'X-RSVP-Token',
];
const EXPOSE_HEADERS = [
  'X-TEC-Total',
  'X-TEC-TotalPages',
  'Link',
  'Allow',
  'X-Request-Id',
  'ETag',
  'Last-Modified',
  // When a refused request (429, 503) may come back.
  'Retry-After',
  // A feed's file name, and the discovery headers a browser client finds the API root by.
  'Content-Disposition',
  'X-TEC-API-VERSION',
  'X-TEC-API-ROOT',
  'X-TEC-API-ORIGIN',
];
const GRAPHQL_METHODS = ['GET', 'POST'];

/** The methods a path serves, from the route table (the language segment is optional). */
export function routeMethods(
  routes: readonly RestRoute[],
  prefix: string = API_PREFIX,
): (path: string) => string[] {
  const table = new Map<string, Set<string>>();
  for (const route of routes) {
    for (const path of [route.path, route.alsoAt?.path].filter((p): p is string => p !== undefined)) {
      const methods = table.get(path) ?? new Set<string>();
      for (const method of route.alsoAt?.path === path ? ['GET'] : route.methods) methods.add(method);
      table.set(path, methods);
    }
  }
  const matchers = [...table].map(([path, methods]) => {
    const pattern = path
      .replace(/[.]/g, '\\.')
      .replace(/:id/g, '\\d+')
      .replace(/:[a-z]+/g, '[^/]+');
    return { regex: new RegExp(`^(?:/[^/]+)?${prefix}${pattern}/?$`), methods: [...methods] };
  });
  return (path) => {
    if (path === '/graphql') return GRAPHQL_METHODS;
    const methods = new Set<string>();
    for (const matcher of matchers)
      if (matcher.regex.test(path)) for (const m of matcher.methods) methods.add(m);
    return methods.size ? [...methods] : ['GET'];
  };
}

export function corsPolicy(origins: readonly string[], methodsOf: (path: string) => string[]): Middleware {
  const anyOrigin = origins.includes('*');
  const allowed = new Set(origins);
  const byMethods = new Map<string, Middleware>();
  const middlewareFor = (methods: string[]) => {
    const key = methods.join(',');
    let middleware = byMethods.get(key);
    if (!middleware) {
      middleware = cors({
        origin: (ctx) => {
          if (anyOrigin) return '*';
          const origin = ctx.get('Origin').toLowerCase();
          return allowed.has(origin) ? ctx.get('Origin') : '';
        },
        credentials: !anyOrigin,
        allowMethods: [...methods, ...(methods.includes('GET') ? ['HEAD'] : []), 'OPTIONS'],
        allowHeaders: ALLOW_HEADERS,
        exposeHeaders: EXPOSE_HEADERS,
        maxAge: 600,
      }) as Middleware;
      byMethods.set(key, middleware);
    }
    return middleware;
  };
  return (ctx, next) => {
    // Without configured origins nothing is granted, but caches must still key on Origin (none do).
    if (!origins.length || !ctx.get('Origin')) return next();
    return middlewareFor(methodsOf(ctx.path))(ctx, next);
  };
}
