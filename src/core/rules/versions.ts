import { createHash } from 'node:crypto';
import { ApiError } from '../errors/errors.js';

// Record versions: the validator an editor sends back (REST `If-Match`, GraphQL `ifMatch`) so that an
// update or delete only applies to the record as the editor last saw it — two editors can no longer
// overwrite each other's changes unseen (412 instead). A version names the record's own stored state:
// posts by their modification time (every write sets it), terms by their own fields (they have no
// such date). Changes to linked records (a venue renamed) alter a representation, not the version.

/** What a version is computed from: posts carry `modifiedAt`, terms their own fields. */
export type VersionedRow =
  { modifiedAt: Date } | { name: string; slug: string; description: string; parentId: number | null };

export function recordVersion(row: VersionedRow): string {
  if ('modifiedAt' in row) return `m${row.modifiedAt.getTime().toString(36)}`;
  const fields = JSON.stringify([row.name, row.slug, row.description, row.parentId]);
  return `t${createHash('sha1').update(fields).digest('base64url').slice(0, 16)}`;
}

/**
 * The entity tag of a single record's representation: its version, then a hash of the bytes. `304`
 * compares the whole tag (the bytes); `If-Match` compares the version part (the record).
 */
export function versionedEtag(version: string, bytesHash: string): string {
  return `"${version}.${bytesHash}"`;
}

/**
 * The modification time a write stores: now, or a millisecond past the previous one when the clock has
 * not moved on (two writes in one millisecond), so that every write gives the post a new version.
 */
export function nextModified(previous: Date, now: Date = new Date()): Date {
  return now.getTime() > previous.getTime() ? now : new Date(previous.getTime() + 1);
}

/** `If-Match` as sent: `*` (any current record) or the entity tags' version parts. */
export type IfMatch = '*' | readonly string[];

/**
 * Parses an `If-Match` header or GraphQL `ifMatch` argument: `*`, a list of quoted entity tags, or a
 * bare version (`m…`/`t…`, as GraphQL's `version` field gives it). Weak tags never match (RFC 9110
 * compares strongly). Null when absent or empty.
 */
export function parseIfMatch(value: string | null | undefined): IfMatch | null {
  const text = value?.trim();
  if (!text) return null;
  if (text === '*') return '*';
  const versions: string[] = [];
  for (const part of text.split(',')) {
    const tag = part.trim();
    if (!tag || tag.startsWith('W/')) continue;
    const opaque = tag.replace(/^"(.*)"$/, '$1');
    versions.push(opaque.split('.')[0]!);
  }
  // Only weak tags: nothing can match (a list that names no version is not "no precondition").
  return versions.length ? versions : ['\u0000'];
}

function preconditionFailed(): ApiError {
  return new ApiError(
    412,
    'precondition_failed',
    'The record changed since the version given in If-Match (ifMatch); read it again before writing.',
  );
}

/** Throws 412 unless the record, as stored before this write, is the version the client names. */
export function assertVersion(ifMatch: IfMatch | null | undefined, row: VersionedRow): void {
  if (!ifMatch || ifMatch === '*') return;
  if (!ifMatch.includes(recordVersion(row))) throw preconditionFailed();
}
