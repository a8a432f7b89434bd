import type { GraphQLSchema } from 'graphql';
import type { RestRoute } from '../route-table.js';
import {
  NAMESPACE,
  type SofaDocument,
  type Discovery,
  routeRegex,
  documentedPaths,
  indexRoute,
} from './paths.js';
import { buildOpenApi } from './openapi.js';

// How the REST API describes itself, generated from the rest-map and the rest GraphQL schema (never a
// hand-kept copy): WordPress' namespace index, the OpenAPI document (SOFA's, extended with what the
// adapter adds: WordPress parameters, flat bodies, statuses, headers, errors) and a local Swagger UI.

// Split by job: paths.ts (the documented routes, the namespace index), openapi.ts (`/doc`),
// swagger-ui.ts; what callers import is re-exported here.

export {
  NAMESPACE,
  type SofaDocument,
  discoveryHeaders,
  routeRegex,
  serviceRoot,
  sofaPathOf,
} from './paths.js';
export { swaggerUiAsset, swaggerUiPage } from './swagger-ui.js';

export function createDiscovery(options: {
  schema: GraphQLSchema;
  routes: RestRoute[];
  sofaDocument: SofaDocument;
  /** The namespace described (default the events API's). */
  namespace?: string;
}): Discovery {
  const { schema, routes, sofaDocument } = options;
  const namespace = options.namespace ?? NAMESPACE;
  const documented = documentedPaths(schema, routes, sofaDocument);
  const openApi = buildOpenApi(schema, sofaDocument, documented);
  return {
    index: (urls) => ({
      namespace,
      routes: Object.fromEntries(
        documented.map((entry) => [
          `/${namespace}${routeRegex(entry.path)}`,
          indexRoute(entry, urls.api, namespace),
        ]),
      ),
      _links: { up: [{ href: `${urls.site}/` }] },
    }),
    route: (path, apiRoot) => {
      const entry = documented.find((candidate) => candidate.path === path);
      return entry && indexRoute(entry, apiRoot, namespace);
    },
    // Key order as the reference: openapi, info, components, servers, paths.
    openApi: (apiRoot) => ({
      openapi: '3.0.3',
      info: openApi.info,
      components: openApi.components,
      // With the slash `rest_url()` ends the reference's root with.
      servers: [
        {
          url: `${apiRoot}/`,
          description: 'This API root (with the language segment of the request, if any)',
        },
      ],
      tags: openApi.tags,
      paths: openApi.paths,
    }),
  };
}
