import type { TermInput } from './terms.js';
import { type BodyTable, ID, STRING, bodyReader } from '../core/rest/body-fields.js';

// Category and tag bodies as WordPress clients send them (docs/reference.md §S2.5): one table per
// taxonomy names each parameter's domain field, its wire reading and its documentation.

/** A category id as a number or its digits; `null` (as `0`) is the top level. */
const parent = bodyReader(
  'TermParent',
  'A term id as a number or its digits; null for the top level',
  ID.schema.nullable(),
);

/** Term texts are strings only (WordPress' `string` arguments). */
function termFields(label: string): BodyTable<TermInput> {
  return {
    name: {
      to: 'name',
      read: STRING,
      doc: { type: 'string', description: `The ${label} name`, required: true },
    },
    description: {
      to: 'description',
      read: STRING,
      doc: { type: 'string', description: `The ${label} description`, required: false },
    },
    slug: {
      to: 'slug',
      read: STRING,
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
    // `parent: null` moves a category to the top level.
    keepNull: true,
  },
};

export const TAG_BODY: BodyTable<TermInput> = termFields('event tag');
