import {
  ANY_WRITE,
  type Dependencies,
  type DependencyKind,
  type EventWindow,
  recordTag,
} from './dependencies.js';

// What one answer's reads depended on beyond the records it shows: the event lists it ran (their date
// window), the families its lookups named (a venue by slug), the records a filter named. The edge that
// made the request hands a fresh log to the services through the request's context and reads it back
// with the answer: written only by the services' list and lookup functions, read only by that edge.

export class ReadLog {
  private readonly records = new Set<string>();
  private readonly kinds = new Set<DependencyKind>();
  private readonly windows: EventWindow[] = [];
  private unknown = false;
  private failed = false;
  private clock = false;
  /** The event columns its fields show (`showsEventColumns`): none said, any, or these. */
  private eventColumns: Set<string> | 'any' | undefined;

  /** The answer reports a failure: it depends on anything, and is never shared. */
  answeredWithErrors(): void {
    this.failed = true;
    this.unknown = true;
  }

  get hasErrors(): boolean {
    return this.failed;
  }

  /** Something read depends on the time of day (a sales window): the answer is never stored. */
  readClock(): void {
    this.clock = true;
  }

  get readsClock(): boolean {
    return this.clock;
  }

  /** Something was read that this log cannot describe: any write makes the answer stale. */
  readUnknown(): void {
    this.unknown = true;
  }

  /** An event list ran over this window. */
  eventList(window: EventWindow): void {
    this.windows.push(window);
  }

  /** The answer depends on every record of this family (a lookup by slug, a list of the family). */
  family(kind: DependencyKind): void {
    this.kinds.add(kind);
  }

  /** The answer depends on this record (it shows it, or a filter named it), or on a term's count. */
  record(kind: 'event' | 'venue' | 'organizer' | 'term' | 'term-count', id: number): void {
    this.records.add(recordTag(kind, id));
  }

  /**
   * A field showing an event read these columns of it (`any`: it cannot say). Only an edge that says
   * it for every field it shows (GraphQL's) narrows its answer's event records to them.
   */
  showsEventColumns(columns: readonly string[] | 'any'): void {
    if (this.eventColumns === 'any' || columns === 'any') {
      this.eventColumns = 'any';
      return;
    }
    const shown = this.eventColumns ?? new Set<string>();
    for (const column of columns) shown.add(column);
    this.eventColumns = shown;
  }

  /** What was logged, with the records the answer shows (read off the answer by its edge). */
  dependencies(shown: Iterable<string> = []): Dependencies {
    if (this.unknown) return ANY_WRITE;
    return {
      records: [...new Set([...this.records, ...shown])],
      kinds: [...this.kinds],
      windows: [...this.windows],
      ...(this.eventColumns !== 'any' &&
        this.eventColumns !== undefined && { eventColumns: [...this.eventColumns] }),
    };
  }
}
