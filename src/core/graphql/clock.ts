import { type DocumentNode, visit } from 'graphql';
import { dependsOnClock } from '../rules/dates.js';

/** A document's string literals, collected once: the parser's cache hands every request the same document. */
const literalsOf = new WeakMap<DocumentNode, readonly string[]>();

/**
 * Whether a query names a time of day relative to now (`startDate: "now"`, in its text or its
 * variables): its answer depends on the clock, not only on the date, so it is never stored.
 */
export function queryReadsClock(document: DocumentNode, variables: unknown, zone: string): boolean {
  const now = new Date();
  const reads = (text: string) => dependsOnClock(text, zone, now);
  return literals(document).some(reads) || stringsOf(variables).some(reads);
}

function literals(document: DocumentNode): readonly string[] {
  let found = literalsOf.get(document);
  if (!found) {
    const strings: string[] = [];
    visit(document, { StringValue: (node) => void strings.push(node.value) });
    literalsOf.set(document, (found = strings));
  }
  return found;
}

function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value === null || typeof value !== 'object') return [];
  return Object.values(value).flatMap(stringsOf);
}
