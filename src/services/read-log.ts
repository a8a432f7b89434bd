import {
  ANY_WRITE,
  type Dependencies,
  type DependencyKind,
  type EventWindow,
  type ListExtent,
  recordTag,
} from '../domain/dependencies.js';

// What one answer's reads depended on beyond the records it shows: the event lists it ran (their date
// window), the families its lookups named (a venue by slug), the records a filter named. The edge that
// made the request hands a fresh log to the services through the request's context and reads it back
// with the answer: written only by the services' list and lookup functions, read only by that edge.

/** The total of a list's page an answer shows, with how to count it again (`ReadLog.totalShown`). */
export interface ShownTotal {
  recount: () => Promise<number>;
  /** What `recount` keeps alive (its query), measured by a cache that keeps it. */
  holds: unknown;
  page: number;
  perPage: number;
}

export class ReadLog {
  private total: ShownTotal | undefined;
  private readonly records = new Set<string>();
  private readonly kinds = new Set<DependencyKind>();
  private readonly windows: EventWindow[] = [];
  private unknown = false;
  private failed = false;

  /** The answer reports a failure: it depends on anything, and is never shared. */
  answeredWithErrors(): void {
    this.failed = true;
    this.unknown = true;
  }

  get hasErrors(): boolean {
    return this.failed;
  }

  /** Something was read that this log cannot describe: any write makes the answer stale. */
  readUnknown(): void {
    this.unknown = true;
  }

  /** An event list ran over this window. */
  eventList(window: EventWindow): void {
    this.windows.push(window);
  }

  /**
   * The answer shows only this extent of the list it logged as `window` (one page of it), and the
   * list's `total`, where the page can say how to count it again.
   */
  narrowEventList(window: EventWindow, extent: ListExtent, total?: ShownTotal): void {
    const index = this.windows.indexOf(window);
    if (index < 0) return;
    this.windows[index] = { ...window, extent };
    if (total) this.total = total;
  }

  /**
   * The total shown of the answer's one event list, a full page of it: a write that changes only who
   * is in the list after that page (`ListMeeting` `total`) leaves the rest of the answer as it was.
   * None when the answer read anything else that could make it differ.
   */
  totalShown(): ShownTotal | undefined {
    return this.unknown || this.windows.length !== 1 ? undefined : this.total;
  }

  /** The answer depends on every record of this family (a lookup by slug, a list of the family). */
  family(kind: DependencyKind): void {
    this.kinds.add(kind);
  }

  /** The answer depends on this record (it shows it, or a filter named it), or on a term's count. */
  record(kind: 'event' | 'venue' | 'organizer' | 'term' | 'term-count', id: number): void {
    this.records.add(recordTag(kind, id));
  }

  /** What was logged, with the records the answer shows (read off the answer by its edge). */
  dependencies(shown: Iterable<string> = []): Dependencies {
    if (this.unknown) return ANY_WRITE;
    return {
      records: [...new Set([...this.records, ...shown])],
      kinds: [...this.kinds],
      windows: [...this.windows],
    };
  }
}
