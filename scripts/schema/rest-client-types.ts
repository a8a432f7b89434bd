// The typed REST client's types (examples/rest-client.ts): openapi-typescript over the OpenAPI
// document `/doc` serves, built in-process from the rest schema and the route table as the server
// builds it (no database, no server: `npm ci` runs this through `npm run codegen`).
// test/core/rest/typed-client.test.ts holds the written file equal to the types of the live `/doc`.
//
//   npx tsx scripts/schema/rest-client-types.ts   →   examples/generated/rest-api.d.ts
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { OpenAPIV3 } from 'openapi-types';
import openapiTS, { COMMENT_HEADER, type OpenAPI3, astToString } from 'openapi-typescript';
import { pino } from 'pino';
import { restRoutes } from '../../rest-map/routes.js';
import { createDiscovery } from '../../src/core/rest/discovery/discovery.js';
import { restOperations } from '../../src/core/rest/operations.js';
import { restSchema } from '../../src/schema.js';

export const REST_API_TYPES = fileURLToPath(
  new URL('../../examples/generated/rest-api.d.ts', import.meta.url),
);

/** `/doc` as the server answers it (under any API root: the types do not name it). */
export function openApiDocument(apiRoot = 'http://localhost:4000/calendar/events/v1'): OpenAPIV3.Document {
  const { document } = restOperations(restSchema, restRoutes, pino({ level: 'silent' }));
  return createDiscovery({ schema: restSchema, routes: restRoutes, sofaDocument: document }).openApi(apiRoot);
}

/** The declarations openapi-typescript writes for `document` (`paths`, `components`, `operations`). */
export async function restApiTypes(document: OpenAPIV3.Document): Promise<string> {
  const nodes = await openapiTS(document as unknown as OpenAPI3, { silent: true });
  return `${COMMENT_HEADER}${astToString(nodes)}`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  mkdirSync(dirname(REST_API_TYPES), { recursive: true });
  writeFileSync(REST_API_TYPES, await restApiTypes(openApiDocument()));
  console.log(`${REST_API_TYPES} written`);
}
