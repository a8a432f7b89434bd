import { defineTaxonomySchema } from './graphql.js';
import { CATEGORY } from './terms.js';

// Event categories (`tribe_events_cat`): hierarchical, each with an optional parent category.

export const Category = defineTaxonomySchema({
  taxonomy: CATEGORY,
  one: 'Category',
  many: 'Categories',
  label: 'category',
  plural: 'categories',
  count: 'Published events in this category',
  hideEmpty: 'Hide categories without published events (and without descendants that have some)',
  uniqueName: 'Unique among the categories of the same parent',
  deleted: 'Deletes for good and returns the category as it was; its children move up to its parent',
});
