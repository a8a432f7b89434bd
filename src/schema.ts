import { GraphQLSchema, lexicographicSortSchema } from 'graphql';
import { builder } from './core/graphql/schema/builder.js';
import './core/graphql/schema/common.js';
import './events/graphql.js';
import './events/graphql-writes.js';
import './places/graphql-venue.js';
import './places/graphql-organizer.js';
import './terms/graphql-category.js';
import './terms/graphql-tag.js';
import './users/graphql.js';
import './sync/graphql-subscriptions.js';
import './sync/graphql-changes.js';
import './sync/graphql-webhooks.js';
import './imports/graphql.js';
import './tickets/schema.js';
import './events/rest-schema.js';
import './places/rest-venue.js';
import './places/rest-organizer.js';
import './terms/rest-schema.js';
import './sync/rest-changes.js';
import { declareTicketedCondition } from './events/model/event-filters.js';
import { ticketedWhere } from './tickets/reservations/sales.js';

// The rooms' schema fields, each room's types imported once here (the wiring), and what a room hands
// a room below it: the tickets room's `ticketed` condition for the events list.
declareTicketedCondition(ticketedWhere);

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
