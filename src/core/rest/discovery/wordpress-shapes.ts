import type { OpenAPIV3 } from 'openapi-types';
import { int, listOf, schemaComponent, str, uri } from './json-shapes.js';

// The WordPress shapes any resource's answer may use (links, PHP's empty array, a featured image);
// each resource's own shapes are declared in its room (`rest-doc-shapes.ts`).

/** WordPress' `_links` relation: a list of `{href}` (HAL-like, as `WP_REST_Response::get_links`). */
export const LINK_LIST: OpenAPIV3.SchemaObject = listOf({
  type: 'object',
  required: ['href'],
  properties: { href: { type: 'string', format: 'uri' } },
});

/** PHP's empty array, which WordPress encodes `[]` where a map would otherwise stand. */
export const WORDPRESS_EMPTY_ARRAY = schemaComponent('WordPressEmptyArray', {
  type: 'array',
  description: 'Always empty (`[]`)',
  maxItems: 0,
  // Nothing may stand in it.
  items: { not: {} },
});

const TEC_IMAGE = schemaComponent('TecImage', {
  type: 'object',
  description: 'A featured image (falsy values left out)',
  required: ['url', 'id'],
  properties: {
    url: uri('The URL of the full-size image'),
    id: int('The image ID'),
    extension: str('The file extension'),
    width: int('The natural width in pixels'),
    height: int('The natural height in pixels'),
    filesize: int('The file size in bytes'),
  },
});

/** What WordPress gives for a missing image: `false`, not null. */
export const IMAGE_OR_FALSE: OpenAPIV3.SchemaObject = {
  anyOf: [TEC_IMAGE, { type: 'boolean', enum: [false] }],
  description: 'The featured image, or `false` when there is none (or it is withheld)',
};
