import { recordTag } from '../../cache/dependencies.js';

// The records a REST answer shows, read off its value in the reference's shapes: an event (it has a
// `start_date`), a venue (its name under `venue`), an organizer (under `organizer`), a term (its
// `taxonomy`), and a term's count where it shows one. A write to any of them changes the answer (the
// response cache's dependencies).

export function recordsShown(value: unknown): string[] {
  const found = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) walk(item);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const record = node as Record<string, unknown>;
    const kind = kindOf(record);
    if (kind && (typeof record.id === 'number' || typeof record.id === 'string')) {
      found.add(recordTag(kind, record.id));
      // A term's count moves without the term being written (`core/db/write-effects.ts`).
      if (kind === 'term' && 'count' in record) found.add(recordTag('term-count', record.id));
    }
    for (const child of Object.values(record)) if (child !== null && typeof child === 'object') walk(child);
  };
  walk(value);
  return [...found];
}

function kindOf(record: Record<string, unknown>): 'event' | 'venue' | 'organizer' | 'term' | null {
  if (typeof record.taxonomy === 'string') return 'term';
  if (typeof record.venue === 'string') return 'venue';
  if (typeof record.organizer === 'string') return 'organizer';
  if ('start_date' in record && 'all_day' in record) return 'event';
  return null;
}
