import { GraphQLSchema, lexicographicSortSchema } from 'graphql';
import { builder } from './builder.js';
import './common.js';
import './event.js';
import './venue.js';
import './organizer.js';
import './category.js';
import './tag.js';
import './user.js';
import './subscriptions.js';
import './changes.js';
import './webhooks.js';
import './import-sources.js';
import '../tickets/schema.js';
import './rest/event.js';
import './rest/venue.js';
import './rest/organizer.js';
import './rest/term.js';
import './rest/changes.js';

/** The idiomatic GraphQL API (yoga). */
export const publicSchema = builder.toSchema({ subGraph: 'public' });

/** The TEC-shaped operations SOFA serves as REST routes (a sub-graph may have no mutations yet). */
export const restSchema = withoutEmptyMutation(builder.toSchema({ subGraph: 'rest', sortSchema: false }));

function withoutEmptyMutation(schema: GraphQLSchema): GraphQLSchema {
  const mutation = schema.getMutationType();
  if (!mutation || Object.keys(mutation.getFields()).length > 0) return schema;
  const config = schema.toConfig();
  return new GraphQLSchema({
    ...config,
    mutation: null,
    types: config.types.filter((type) => type !== mutation),
  });
}

export function printableSchema() {
  return lexicographicSortSchema(publicSchema);
}
