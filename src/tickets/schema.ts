// The tickets room's GraphQL fields (public API and the REST sub-graph): imported once by src/schema.ts.
import './graphql.js';
import './rest/schema.js';
import './event-shape.js';
