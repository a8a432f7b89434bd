import {
  ANY_WRITE,
  type Dependencies,
  type DependencyKind,
  type EventWindow,
  type ListExtent,
  recordTag,
} from './dependencies.js';

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
  /** The records a list's filter named (`named`): a write to one may change who is in the list. */
  private readonly filterNamed = new Set<string>();
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

  /**
   * The events of the answer's one event list that it shows as rows and its edge can render again:
   * those its filter did not name (a write to one changes only its row unless the list's window says
   * otherwise). None when the answer read anything else that could make it differ.
   */
  renderableRows(shown: readonly number[]): number[] {
    if (this.unknown || this.windows.length !== 1) return [];
    return shown.filter((id) => !this.filterNamed.has(recordTag('event', id)));
  }

  /** A list's filter named this record: the answer depends on it whether it shows it or not. */
  named(kind: 'event' | 'venue' | 'organizer', id: number): void {
    this.record(kind, id);
    this.filterNamed.add(recordTag(kind, id));
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
  dependencies(shown: Iterable<string> = [], rows: readonly number[] = []): Dependencies {
    if (this.unknown) return ANY_WRITE;
    const records = new Set([...this.records, ...shown]);
    // A row rendered again in place depends on its event as a row, not as a record.
    for (const id of rows) records.delete(recordTag('event', id));
    return {
      records: [...records],
      kinds: [...this.kinds],
      windows: [...this.windows],
      ...(rows.length && { rows: [...rows] }),
      ...(this.eventColumns !== 'any' &&
        this.eventColumns !== undefined && { eventColumns: [...this.eventColumns] }),
    };
  }
}
