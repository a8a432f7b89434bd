import { z } from 'zod';
import type { TermInput } from './terms.js';
import { type BodyTable, readBody } from '../core/rest/body-fields.js';

// Category and tag bodies as WordPress clients send them (docs/reference.md §S2.5): one table per
// taxonomy names each parameter's domain field, its wire reading and its documentation.

/** Term texts are strings only (WordPress' `string` arguments). */
const text = z.string();
/** A category id as a number or its digits; `null` (as `0`) is the top level. */
const parent = z.union([z.number(), z.string().trim().regex(/^\d+$/).transform(Number), z.null()]);

function termFields(label: string): BodyTable<TermInput> {
  return {
    name: {
      to: 'name',
      read: text,
      doc: { type: 'string', description: `The ${label} name`, required: true },
    },
    description: {
      to: 'description',
      read: text,
      doc: { type: 'string', description: `The ${label} description`, required: false },
    },
    slug: {
      to: 'slug',
      read: text,
      doc: { type: 'string', description: `The ${label} slug`, required: false },
    },
  };
}

export const CATEGORY_BODY: BodyTable<TermInput> = {
  ...termFields('event category'),
  parent: {
    to: 'parentId',
    read: parent,
    doc: { type: 'integer', description: 'The parent event category term ID', required: false },
  },
};

export const TAG_BODY: BodyTable<TermInput> = termFields('event tag');

/** A term body read into the domain (`parent: null` is kept: it moves a category to the top level). */
export function readTermBody(table: BodyTable<TermInput>, body: unknown) {
  return readBody(table, body, ['parent']);
}
