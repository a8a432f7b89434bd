// Writes prisma/postgres/schema.prisma from schema.prisma (the one source of truth for the models).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SEARCHED_FIELDS } from '../../src/core/rules/search.js';

export const root = fileURLToPath(new URL('../../', import.meta.url));
export const sqliteSchemaPath = join(root, 'schema.prisma');
export const postgresSchemaPath = join(root, 'prisma/postgres/schema.prisma');

const postgresClientOutput = posix.relative('prisma/postgres', 'src/generated/postgres');

/** Replaces one top-level block (`kind name { ... }`); throws if it is missing so a reshaped schema is noticed. */
function editBlock(schema: string, kind: string, name: string, edit: (block: string) => string): string {
  const pattern = new RegExp(`^${kind}\\s+${name}\\s*\\{[^}]*^\\}\\n*`, 'm');
  if (!pattern.test(schema)) throw new Error(`schema.prisma has no \`${kind} ${name}\` block`);
  return schema.replace(pattern, edit);
}

function setField(block: string, field: string, value: string): string {
  const pattern = new RegExp(`^(\\s*${field}\\s*=\\s*)"[^"]*"`, 'm');
  if (!pattern.test(block)) throw new Error(`schema.prisma: no \`${field}\` in\n${block}`);
  return block.replace(pattern, `$1"${value}"`);
}

function addField(block: string, field: string, value: string): string {
  return block.replace(/\n\}(\s*)$/, `\n  ${field} = ${value}\n}$1`);
}

/** Adds index lines at the end of a model block (before its closing brace). */
function addIndexes(block: string, indexes: readonly string[]): string {
  return block.replace(/\n\}(\s*)$/, `\n${indexes.map((line) => `  ${line}\n`).join('')}}$1`);
}

/**
 * The `pg_trgm` GIN index of each column `search` reads (WordPress's `LIKE '%term%'`, Prisma's
 * case-insensitive `contains`: ILIKE), so a search reads the rows holding its terms' trigrams instead
 * of every row. SQLite's equivalent is the `EventSearch` FTS5 table (migration `event_search`); its
 * schema cannot declare these.
 */
const TRIGRAM_INDEXED: Record<string, readonly string[]> = SEARCHED_FIELDS;

const trigramIndex = (model: string, column: string) =>
  `@@index([${column}(ops: raw("gin_trgm_ops"))], type: Gin, map: "${model}_${column}_trgm_idx")`;

/** Pure text transformation: same input, same output. */
export function derivePostgresSchema(source: string): string {
  let schema = source.replace(/\r\n/g, '\n');
  // The leading comment addresses editors of the source file; the header below replaces it.
  schema = schema.replace(/^(?:\/\/[^\n]*\n|\s*\n)*/, '');
  schema = editBlock(schema, 'generator', 'pothos', () => ''); // Pothos types come from the SQLite client
  // PostgreSQL loads a list's relations in the same statement (JSON aggregation, lateral joins) instead
  // of one statement per relation level; SQLite has no such strategy.
  schema = editBlock(schema, 'generator', 'client', (block) =>
    addField(setField(block, 'output', postgresClientOutput), 'previewFeatures', '["relationJoins"]'),
  );
  schema = editBlock(schema, 'datasource', 'db', (block) => setField(block, 'provider', 'postgresql'));
  for (const [model, columns] of Object.entries(TRIGRAM_INDEXED)) {
    schema = editBlock(schema, 'model', model, (block) =>
      addIndexes(
        block,
        columns.map((column) => trigramIndex(model, column)),
      ),
    );
  }
  return `// generated from ../../schema.prisma, do not edit\n\n${schema}`;
}

export function readSchema(provider: 'sqlite' | 'postgresql'): string {
  const source = readFileSync(sqliteSchemaPath, 'utf8');
  return provider === 'sqlite' ? source : derivePostgresSchema(source);
}

export function writeDerivedSchema(): string {
  mkdirSync(dirname(postgresSchemaPath), { recursive: true });
  writeFileSync(postgresSchemaPath, readSchema('postgresql'));
  return postgresSchemaPath;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(`wrote ${writeDerivedSchema()}`);
}
