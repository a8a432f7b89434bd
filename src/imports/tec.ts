import { type Batch, type Problem, type Reader, type SourceRecord, stableJson } from './records.js';
import {
  type EventItem,
  type Json,
  eventItem,
  eventRecord,
  keyOf,
  organizerRecord,
  parentsFirst,
  termRecord,
  text,
  venueRecord,
} from './tec/item-records.js';
import { assembleSeries } from './tec/series.js';

// A The Events Calendar REST API v1 site (or another instance of this service) read through its API:
// categories (parents before children), tags, venues, organizers, then events, each paged at the API's
// maximum of 50 with `X-TEC-TotalPages`. Events are asked for over the whole calendar (the API's window
// otherwise starts yesterday) and, with credentials, in every status they may read. Records are keyed
// by `global_id` (terms, which have none, by their id), and events link to them by those keys. A
// password-protected event is found by its blanked public copy (`protectedEvents`) and protected here;
// hidden events are never listed, so they cannot be imported (each run says so). Items become records
// in `tec/item-records.ts`, a source series' occurrences one series in `tec/series.ts`.

interface TecOptions {
  user?: string;
  appPassword?: string;
  /** Per request, in milliseconds. */
  timeoutMs?: number;
}

const TEC_PER_PAGE = 50;
const PHASES = ['categories', 'tags', 'venues', 'organizers', 'events'] as const;
type Phase = (typeof PHASES)[number];
/** Tries of one page before the run stops (it can be resumed). */
const ATTEMPTS = 4;
const EARLIEST = '1000-01-01 00:00:00';
const LATEST = '9999-12-31 23:59:59';
/** The statuses an account that may edit events reads (trash is never imported). */
const STATUSES = 'publish,future,draft,pending,private';

/** Said once a run: what the API cannot give (the lists, TEC's and this service's alike, leave them out). */
const HIDDEN_EVENTS: Problem = {
  where: 'events',
  message:
    'events hidden from listings (hide_from_listings) are never listed by the TEC API, so they are not imported; one imported before it was hidden stays as it was',
  warning: true,
};
const PROTECTED_HERE =
  "password-protected at the source, whose API never shows the password: protected here with a random password of its own, made on its first import and never shown (set the one you want with the event's `password`: REST POST /events/<id>, GraphQL updateEvent)";
const PROTECTED_UNREAD =
  'password-protected at the source: without credentials only its blanked copy is readable, so it is not imported (import with --user and --app-password to bring it in, protected here too)';

/** `https://site/wp-json/tribe/events/v1` however it was typed (a trailing slash, `/events` at the end). */
function normaliseApiRoot(root: string): string {
  return root
    .trim()
    .replace(/\/+$/, '')
    .replace(/\/events$/, '');
}

export class TecReader implements Reader {
  readonly source: string;
  private readonly root: string;

  constructor(
    apiRoot: string,
    private readonly options: TecOptions = {},
  ) {
    this.root = normaliseApiRoot(apiRoot);
    this.source = `tec:${this.root}`;
  }

  private get authorised(): boolean {
    return Boolean(this.options.user && this.options.appPassword);
  }

  /** A page of `phase`; `anonymous`: as everyone reads it (no credentials, published records only). */
  private async page(
    phase: Phase,
    page: number,
    anonymous = false,
  ): Promise<{ items: Json[]; pages: number; total: number }> {
    const authorised = this.authorised && !anonymous;
    const url = new URL(`${this.root}/${phase}`);
    url.searchParams.set('page', String(page));
    url.searchParams.set('per_page', String(TEC_PER_PAGE));
    if (phase === 'events') {
      url.searchParams.set('start_date', EARLIEST);
      url.searchParams.set('end_date', LATEST);
    }
    if (phase !== 'categories' && phase !== 'tags' && authorised) url.searchParams.set('status', STATUSES);
    if (phase === 'categories' || phase === 'tags') url.searchParams.set('hide_empty', 'false');
    const headers: Record<string, string> = { accept: 'application/json' };
    if (authorised) {
      const pair = `${this.options.user}:${this.options.appPassword}`;
      headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
    }
    const response = await this.fetchWithRetries(url, headers);
    const body = (await response.json().catch(() => null)) as Json | null;
    // Past the last page the API answers 400 (`rest_invalid_param` on page) or an empty list.
    if (response.status === 400 && page > 1) return { items: [], pages: page - 1, total: 0 };
    if (!response.ok || !body)
      throw new Error(
        `${url.toString()} answered ${response.status}${body?.message ? `: ${text(body.message)}` : ''}`,
      );
    const pages = Number(response.headers.get('x-tec-totalpages') ?? body.total_pages ?? 1) || 1;
    const total = Number(response.headers.get('x-tec-total') ?? body.total ?? 0) || 0;
    const items = Array.isArray(body[phase]) ? (body[phase] as Json[]) : [];
    return { items, pages, total };
  }

  /**
   * The keys of the listed events that are password-protected at the source, whose API never says so
   * outright. A candidate is an event whose copy in the list as everyone reads it has its content
   * blanked (no description, no excerpt) and either its flags blanked (null, as this service's API
   * blanks them) or less than the copy read with credentials shows; the proof is the 403
   * `event-password-protected` the API answers when that event is asked for alone without a password.
   * What everyone's list does not show (drafts, pending, scheduled, private) is not public here either.
   */
  private async protectedEvents(listed: ReadonlyMap<string, Json>): Promise<Set<string>> {
    const everyones = this.authorised ? await this.everyonesEvents() : listed;
    const found = new Set<string>();
    for (const [key, copy] of everyones) {
      const read = listed.get(key);
      if (!read || text(copy.description) || text(copy.excerpt)) continue;
      const flagsBlanked = typeof copy.all_day !== 'boolean';
      const showsMore =
        read !== copy &&
        stableJson(eventRecord(read, '').fields) !== stableJson(eventRecord(copy, '').fields);
      if ((flagsBlanked || showsMore) && (await this.refusedForPassword(copy))) found.add(key);
    }
    return found;
  }

  /** The events list as everyone reads it, by key. */
  private async everyonesEvents(): Promise<Map<string, Json>> {
    const byKey = new Map<string, Json>();
    for (let page = 1, last = 1; page <= last; page++) {
      const answer = await this.page('events', page, true);
      last = answer.pages;
      if (!answer.items.length) break;
      for (const item of answer.items) byKey.set(keyOf(item), item);
    }
    return byKey;
  }

  /** Whether the API refuses this event, asked for alone without credentials, for want of its password. */
  private async refusedForPassword(item: Json): Promise<boolean> {
    const url = new URL(`${this.root}/events/${encodeURIComponent(text(item.id))}`);
    const response = await this.fetchWithRetries(url, { accept: 'application/json' });
    const body = (await response.json().catch(() => null)) as Json | null;
    return response.status === 403 && body?.code === 'event-password-protected';
  }

  /** A dropped connection, a 429 or a 5xx is asked again (a run is long; one hiccup must not end it). */
  private async fetchWithRetries(url: URL, headers: Record<string, string>): Promise<Response> {
    for (let attempt = 1; ; attempt++) {
      try {
        const response = await fetch(url, {
          headers,
          signal: AbortSignal.timeout(this.options.timeoutMs ?? 60_000),
        });
        if ((response.status !== 429 && response.status < 500) || attempt >= ATTEMPTS) return response;
      } catch (error) {
        if (attempt >= ATTEMPTS) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, 250 * 2 ** attempt));
    }
  }

  private record(phase: Phase, item: Json, where: string): SourceRecord {
    switch (phase) {
      case 'categories':
        return termRecord('category', item, where);
      case 'tags':
        return termRecord('tag', item, where);
      case 'venues':
        return venueRecord(item, where);
      case 'organizers':
        return organizerRecord(item, where);
      case 'events':
        return eventRecord(item, where);
    }
  }

  private toBatch(phase: Phase, page: number, items: Json[], total: number): Batch {
    const records: SourceRecord[] = [];
    const problems: Problem[] = [];
    items.forEach((item, index) => {
      const where = `${phase} page ${page}, item ${index + 1}${item.id !== undefined ? ` (id ${text(item.id)})` : ''}`;
      const record = this.record(phase, item, where);
      if (!record.key) problems.push({ where, message: 'no global_id or id' });
      else records.push(record);
    });
    return { checkpoint: `${phase}:${page}`, records, problems, total };
  }

  async *read(after: string | null): AsyncIterable<Batch> {
    const [afterPhase = '', afterPage = '0'] = (after ?? '').split(':');
    const from = after ? Math.max(0, [...PHASES, 'occurrences'].indexOf(afterPhase)) : 0;
    for (const phase of PHASES.slice(from)) {
      if (phase === 'events') {
        yield* this.events(afterPhase === 'events' ? Number(afterPage) : 0, 0);
        return;
      }
      let page = phase === afterPhase ? Number(afterPage) + 1 : 1;
      if (phase === 'categories') {
        if (phase === afterPhase) continue;
        // Every page first: a child may be listed before its parent.
        const all: Json[] = [];
        let pages = 1;
        for (page = 1; page <= pages; page++) {
          const answer = await this.page(phase, page);
          all.push(...answer.items);
          pages = answer.pages;
        }
        const batch = this.toBatch(phase, 1, all, all.length);
        yield { ...batch, records: parentsFirst(batch.records) };
        continue;
      }
      for (let pages = page; page <= pages; page++) {
        const answer = await this.page(phase, page);
        pages = answer.pages;
        if (!answer.items.length) break;
        yield this.toBatch(phase, page, answer.items, answer.total);
      }
    }
    if (afterPhase === 'occurrences') yield* this.events(Number.POSITIVE_INFINITY, Number(afterPage));
  }

  /**
   * The events, every page read first (an occurrence may be listed pages after its series' first event,
   * which names them all): each page's first events and single events (`events:<page>`), then the
   * occurrences, whose series are then written (`occurrences:<n>`), 50 a batch. Pages up to
   * `afterPage` and occurrence batches up to `afterOccurrences` were written by the run resumed.
   */
  private async *events(afterPage: number, afterOccurrences: number): AsyncIterable<Batch> {
    const pages: Array<{ batch: Batch; items: EventItem[] }> = [];
    const listed = new Map<string, Json>();
    for (let page = 1, last = 1; page <= last; page++) {
      const answer = await this.page('events', page);
      last = answer.pages;
      if (!answer.items.length) break;
      const items: EventItem[] = [];
      const problems: Problem[] = page === 1 ? [HIDDEN_EVENTS] : [];
      answer.items.forEach((item, index) => {
        const where = `events page ${page}, item ${index + 1}${item.id !== undefined ? ` (id ${text(item.id)})` : ''}`;
        const read = eventItem(item, where);
        if (!read.record.key) problems.push({ where, message: 'no global_id or id' });
        else {
          items.push(read);
          listed.set(read.record.key, item);
        }
      });
      pages.push({
        batch: { checkpoint: `events:${page}`, records: [], problems, total: answer.total },
        items,
      });
    }
    const protectedKeys = await this.protectedEvents(listed);
    for (const page of pages) {
      page.items = page.items.filter(({ record }) => {
        if (!protectedKeys.has(record.key)) return true;
        const { where, key } = record;
        if (!this.authorised) {
          page.batch.problems.push({ where, key, message: PROTECTED_UNREAD, warning: true });
          return false;
        }
        record.fields.passwordProtected = true;
        page.batch.problems.push({ where, key, message: PROTECTED_HERE, warning: true });
        return true;
      });
    }
    const occurrences = assembleSeries(pages.flatMap((page) => page.items));
    const total = pages[0]?.batch.total;
    for (const [index, { batch, items }] of pages.entries()) {
      if (index + 1 <= afterPage) continue;
      const records = items.map((item) => item.record).filter((record) => !occurrences.has(record));
      yield { ...batch, records };
    }
    const list = [...occurrences];
    for (let n = afterOccurrences; n * TEC_PER_PAGE < list.length; n++)
      yield {
        checkpoint: `occurrences:${n + 1}`,
        records: list.slice(n * TEC_PER_PAGE, (n + 1) * TEC_PER_PAGE),
        problems: [],
        ...(total !== undefined ? { total } : {}),
      };
  }
}
