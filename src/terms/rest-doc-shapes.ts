import type { OpenAPIV3 } from 'openapi-types';
import { constant, int, listOf, schemaComponent, str, uri } from '../core/rest/discovery/json-shapes.js';
import { LINK_LIST, WORDPRESS_EMPTY_ARRAY } from '../core/rest/discovery/wordpress-shapes.js';

// How `/doc` describes categories and tags where the REST answers give them as JSON: a term embedded
// in an event, a term's URLs and `_links`, its meta.

export const TEC_TERM_URLS = schemaComponent('TecTermUrls', {
  type: 'object',
  description: "The term's REST URLs: its own, its collection's and its parent's",
  required: ['self', 'collection'],
  properties: {
    self: uri('This term'),
    collection: uri("The term's collection"),
    up: uri('The parent term, when there is one'),
  },
});

export const TEC_EVENT_TERM = schemaComponent('TecEventTerm', {
  type: 'object',
  description: "A category or tag embedded in an event: WordPress' term object, with TEC's `urls`",
  required: [
    'name',
    'slug',
    'term_group',
    'term_taxonomy_id',
    'taxonomy',
    'description',
    'parent',
    'count',
    'filter',
    'id',
    'urls',
  ],
  properties: {
    name: str('The term name'),
    slug: str('The term slug'),
    term_group: int('Always 0'),
    term_taxonomy_id: int('The term taxonomy ID (the term ID here)'),
    taxonomy: { type: 'string', enum: ['tribe_events_cat', 'post_tag'] },
    description: str('The term description'),
    parent: int('The parent term ID, 0 for none'),
    count: int('The number of events with the term'),
    filter: constant('raw'),
    id: int('The term ID'),
    urls: TEC_TERM_URLS,
  },
});

export const TEC_TERM_LINKS = schemaComponent('TecTermLinks', {
  type: 'object',
  description: "WordPress' `_links` of a single term",
  required: ['self', 'collection', 'about', 'wp:post_type', 'curies'],
  properties: {
    self: listOf({
      type: 'object',
      required: ['href', 'targetHints'],
      properties: {
        href: { type: 'string', format: 'uri' },
        targetHints: {
          type: 'object',
          required: ['allow'],
          properties: {
            allow: listOf({ type: 'string' }, 'The methods the caller may use on the term'),
          },
        },
      },
    }),
    collection: LINK_LIST,
    about: LINK_LIST,
    up: listOf({
      type: 'object',
      required: ['href', 'embeddable'],
      properties: { href: { type: 'string', format: 'uri' }, embeddable: { type: 'boolean' } },
    }),
    'wp:post_type': LINK_LIST,
    curies: listOf({
      type: 'object',
      required: ['name', 'href', 'templated'],
      properties: { name: { type: 'string' }, href: { type: 'string' }, templated: { type: 'boolean' } },
    }),
  },
});

/** WordPress' term meta: this service registers none. */
export const TERM_META: OpenAPIV3.SchemaObject = {
  allOf: [WORDPRESS_EMPTY_ARRAY],
  description: 'Registered term meta: none here, so always `[]`',
};
