import { defineTaxonomySchema } from './graphql.js';
import { TAG } from './terms.js';

// Tags (`post_tag`, WordPress' own taxonomy): flat.

export const Tag = defineTaxonomySchema({
  taxonomy: TAG,
  one: 'Tag',
  many: 'Tags',
  label: 'tag',
  plural: 'tags',
  count: 'Published events with this tag',
  hideEmpty: 'Hide tags without published events',
  uniqueName: 'Unique among tags',
  deleted: 'Deletes for good and returns the tag as it was',
});
