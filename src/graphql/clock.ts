import { type DocumentNode, visit } from 'graphql';
import { dependsOnClock } from '../domain/dates.js';

/**
 * Whether a query names a time of day relative to now (`startDate: "now"`, in its text or its
 * variables): its answer depends on the clock, not only on the date, so it is never stored.
 */
export function queryReadsClock(document: DocumentNode, variables: unknown, zone: string): boolean {
  const now = new Date();
  let reads = false;
  visit(document, {
    StringValue(node) {
      if (!reads && dependsOnClock(node.value, zone, now)) reads = true;
    },
  });
  return reads || stringsOf(variables).some((text) => dependsOnClock(text, zone, now));
}

function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value === null || typeof value !== 'object') return [];
  return Object.values(value).flatMap(stringsOf);
}
