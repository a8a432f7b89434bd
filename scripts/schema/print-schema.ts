// Writes the public GraphQL schema to schema.graphql (reviewed in diffs; a test fails when it is stale).
import { writeFileSync } from 'node:fs';
import { printSchema } from 'graphql';
import { printableSchema, restSchema } from '../../src/schema.js';

if (process.argv.includes('--rest')) {
  process.stdout.write(printSchema(restSchema));
} else {
  writeFileSync(new URL('../../schema.graphql', import.meta.url), `${printSchema(printableSchema())}\n`);
  console.log('schema.graphql written');
}
