import { readFileSync } from 'node:fs';
import { printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { printableSchema, restSchema } from '../../../src/schema.js';

describe('schema.graphql', () => {
  it('is the printed public schema (run `npm run schema:print` after a schema change)', () => {
    const committed = readFileSync(new URL('../../../schema.graphql', import.meta.url), 'utf8');
    expect(committed).toBe(`${printSchema(printableSchema())}\n`);
  });

  it('keeps the REST-only types out of the public API', () => {
    const printed = printSchema(printableSchema());
    expect(printed).not.toMatch(/\bTec\w+/);
    expect(printSchema(restSchema)).toMatch(/type TecSingleEvent/);
  });
});
