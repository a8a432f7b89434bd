import { createReadStream, type ReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

// ---- Swagger UI, served from the local swagger-ui-dist package (no network) ------------------------

const SWAGGER_DIR = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const SWAGGER_ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

/** The Swagger UI page; `base` is the page's own path, `documentUrl` the path of `/doc`. */
export function swaggerUiPage(base: string, documentUrl: string): string {
  const options = {
    url: documentUrl,
    dom_id: '#swagger-ui',
    validatorUrl: null,
    deepLinking: true,
    tryItOutEnabled: true,
  };
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Calendar REST API</title>
    <link rel="icon" type="image/png" href="${base}/favicon-32x32.png" />
    <link rel="stylesheet" href="${base}/swagger-ui.css" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${base}/swagger-ui-bundle.js"></script>
    <script>window.ui = SwaggerUIBundle(${JSON.stringify(options)});</script>
  </body>
</html>
`;
}

/** One of Swagger UI's files, or undefined for any other name. */
export function swaggerUiAsset(name: string): { type: string; body: ReadStream } | undefined {
  const type = SWAGGER_ASSETS[name];
  return type ? { type, body: createReadStream(join(SWAGGER_DIR, name)) } : undefined;
}
