import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parse } from 'graphql';

// Document ids and the trusted-documents manifest (`CALENDAR_TRUSTED_DOCUMENTS`), read by the
// configuration at start-up: a leaf module, so that reading the configuration loads none of the
// GraphQL layer (persisted.ts serves the documents).

/** The hex SHA-256 of a document's text: its id. */
export function documentHash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

const SHA256_ID = /^(?:sha256:)?([0-9a-f]{64})$/i;

/** An id as the store keys it: lowercase hex, without the `sha256:` prefix; other ids unchanged. */
export function normaliseId(id: string): string {
  const match = SHA256_ID.exec(id);
  return match ? match[1]!.toLowerCase() : id;
}

/**
 * Reads a persisted-documents manifest (a JSON object of id → document text, as codegen writes it):
 * every id must be the SHA-256 of its document and every document must parse. Throws an Error that
 * says what is wrong with the file.
 */
export function readTrustedDocuments(path: string): Map<string, string> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`cannot read ${path}: ${(error as Error).message}`);
  }
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch (error) {
    throw new Error(`${path} is not JSON: ${(error as Error).message}`);
  }
  if (!manifest || typeof manifest !== 'object' || Array.isArray(manifest))
    throw new Error(
      `${path} must be a JSON object of document id → document text (codegen's persisted-documents.json)`,
    );
  const documents = new Map<string, string>();
  for (const [id, document] of Object.entries(manifest)) {
    if (typeof document !== 'string') throw new Error(`${path}: the document of ${id} is not a string`);
    if (!SHA256_ID.test(id)) throw new Error(`${path}: ${id} is not a SHA-256 id (sha256:<64 hex digits>)`);
    const hash = normaliseId(id);
    if (documentHash(document) !== hash)
      throw new Error(`${path}: the document of ${id} does not hash to it (SHA-256 of its text)`);
    try {
      parse(document);
    } catch (error) {
      throw new Error(`${path}: the document of ${id} does not parse: ${(error as Error).message}`);
    }
    documents.set(hash, document);
  }
  if (documents.size === 0) throw new Error(`${path} holds no documents: every request would be refused`);
  return documents;
}
