import { lexicographicSortSchema } from 'graphql';
import { builder } from './builder.js';
import './common.js';
import './event.js';
import './venue.js';
import './organizer.js';
import './term.js';
import './rest/event.js';

/** The idiomatic GraphQL API (yoga). */
export const publicSchema = builder.toSchema({ subGraph: 'public' });

/** The TEC-shaped operations SOFA serves as REST routes. */
export const restSchema = builder.toSchema({ subGraph: 'rest', sortSchema: false });

export function printableSchema() {
  return lexicographicSortSchema(publicSchema);
}
