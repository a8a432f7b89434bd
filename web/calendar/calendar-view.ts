// <calendar-view>: the service's events as a month grid, an upcoming list or a day, for any page:
//
//   <script type="module" src="https://calendar.example/embed/calendar.js"></script>
//   <calendar-view view="month" categories="music" lang="fr" filter-bar live></calendar-view>
//
// It reads /graphql of the server that served this file (or `endpoint`), by persisted document ids
// only, as an anonymous visitor; the one thing it writes is an RSVP from an event's details.
import { LitElement, type PropertyValues, html, nothing } from 'lit';
import {
  CalendarEventChangedDocument,
  CalendarEventDocument,
  type CalendarEventQuery,
  CalendarEventsDocument,
  type CalendarEventsQuery,
  type CalendarEventsQueryVariables,
  CalendarFiltersDocument,
  type CalendarFiltersQuery,
  CalendarRsvpDocument,
  type CalendarRsvpMutation,
  type EventFilter,
} from '../../examples/generated/calendar-view/graphql.js';
import { GraphqlClient, GraphqlError } from './graphql-client.js';
import { styles } from './styles.js';
import {
  addDays,
  dayIn,
  firstDayOfWeek,
  intlZone,
  monthGrid,
  monthOf,
  noonOf,
  shiftMonths,
  wallClock,
  weekdayOf,
} from './zoned.js';

type Summary = CalendarEventsQuery['eventsConnection']['edges'][number]['node'];
type Details = NonNullable<CalendarEventQuery['event']>;
type View = 'month' | 'list' | 'day';
type PageInfo = CalendarEventsQuery['eventsConnection']['pageInfo'];
type TicketType = Details['ticketTypes'][number];
type RsvpField = 'name' | 'email' | 'guests';

/** One ticket type's form: what it is doing, its refusal (announced) and each field's own error. */
interface RsvpState {
  busy: boolean;
  message: string;
  fields: Partial<Record<RsvpField, string>>;
  confirmation: CalendarRsvpMutation['rsvp'] | null;
}

const NO_RSVP: RsvpState = { busy: false, message: '', fields: {}, confirmation: null };
const RSVP_FIELDS: RsvpField[] = ['name', 'email', 'guests'];

// The server writes its time zone here when it serves this file (src/core/http/embed.ts).
const SITE_ZONE = '@@CALENDAR_SITE_TIMEZONE@@';
const MONTH_PAGES = 20;
const CHIPS = 3;

// Words Intl cannot give; dates, months and weekdays come from Intl in the `lang` locale.
const T = {
  previous: { month: 'Previous month', day: 'Previous day', list: 'Earlier events' },
  next: { month: 'Next month', day: 'Next day', list: 'Later events' },
  views: { month: 'Month', list: 'List', day: 'Day' },
  view: 'View',
  filters: 'Filters',
  category: 'Category',
  tag: 'Tag',
  venue: 'Venue',
  search: 'Search',
  all: 'All',
  earlier: 'Earlier',
  later: 'Later',
  noEvents: 'No events',
  allDay: 'All day',
  loading: 'Loading…',
  failed: 'The calendar could not be loaded.',
  close: 'Close',
  when: 'When',
  yourTime: 'Your time',
  where: 'Where',
  map: 'Map',
  organizers: 'Organizers',
  cost: 'Cost',
  online: 'Online',
  website: 'Website',
  ics: 'Download .ics',
  google: 'Add to Google Calendar',
  status: { canceled: 'Canceled', postponed: 'Postponed', scheduled: '' },
  events: (n: number) => (n === 1 ? '1 event' : `${n} events`),
  tickets: 'Tickets and RSVP',
  free: 'Free',
  placesLeft: (n: number) => (n === 1 ? '1 place left' : `${n} places left`),
  unlimited: 'Places available',
  soldOut: 'Sold out',
  waitlistOpen: (n: number) => `Waitlist open (${n} waiting)`,
  opens: (when: string) => `Not on sale yet: opens ${when}`,
  salesClosed: 'Sales closed',
  name: 'Name',
  email: 'E-mail',
  guests: 'Number of places',
  guestsHint: (max: number) => (max === 1 ? 'One place per reservation.' : `From 1 to ${max}.`),
  reserve: 'Reserve',
  joinWaitlist: 'Join the waitlist',
  sending: 'Sending…',
  places: (n: number) => (n === 1 ? '1 place' : `${n} places`),
  going: (places: string) => `You are going: ${places} reserved.`,
  waitlisted: (places: string) => `You are on the waitlist for ${places}: you will get them in turn.`,
  token: 'Your reservation code',
  keepToken: 'Keep this to change or cancel your reservation.',
  invalidField: {
    name: 'Enter your name (up to 200 characters).',
    email: 'Enter a valid e-mail address, such as name@example.org.',
    guests: (max: number) => `Enter a number of places from 1 to ${max}.`,
  },
  refused: {
    fields: 'The reservation was not made: please correct the marked fields.',
    SOLD_OUT: 'The reservation was not made: no places are left for this ticket.',
    SALES_CLOSED: 'The reservation was not made: this ticket is not on sale at the moment.',
    TOO_MANY: (max: number) => `The reservation was not made: at most ${max} places at once.`,
    other: (reason: string) => `The reservation was not made: ${reason}`,
  },
};

const list = (value: string | null | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

/** Only web and mail links from the data become links. */
const safeUrl = (url: string | null | undefined): string | null =>
  url && /^(https?:|mailto:)/i.test(url) ? url : null;

const plainText = (html: string): string =>
  html ? (new DOMParser().parseFromString(html, 'text/html').body.textContent ?? '').trim() : '';

const compactUtc = (instant: string): string =>
  new Date(instant)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');

export class CalendarView extends LitElement {
  static override styles = styles;
  static override properties = {
    view: { reflect: true },
    date: {},
    locale: { attribute: 'lang' },
    timezone: {},
    categories: {},
    tags: {},
    venues: {},
    search: {},
    endpoint: {},
    pageSize: { attribute: 'page-size', type: Number },
    filterBar: { attribute: 'filter-bar', type: Boolean },
    live: { type: Boolean },
    _day: { state: true },
    _events: { state: true },
    _page: { state: true },
    _loading: { state: true },
    _error: { state: true },
    _details: { state: true },
    _choices: { state: true },
    _rsvp: { state: true },
  };

  declare view: View;
  /** The day shown first (`YYYY-MM-DD`); today in the calendar's zone by default. */
  declare date: string | undefined;
  declare locale: string | undefined;
  declare timezone: string | undefined;
  declare categories: string | undefined;
  declare tags: string | undefined;
  declare venues: string | undefined;
  declare search: string | undefined;
  declare endpoint: string | undefined;
  declare pageSize: number;
  declare filterBar: boolean;
  declare live: boolean;

  declare _day: string;
  declare _events: Summary[];
  declare _page: { items: Summary[]; pageInfo: PageInfo | null };
  declare _loading: boolean;
  declare _error: string | null;
  declare _details: Details | 'loading' | null;
  declare _choices: CalendarFiltersQuery | null;
  /** The RSVP forms of the open details, by ticket type id. */
  declare _rsvp: Record<number, RsvpState>;

  private client: GraphqlClient | null = null;
  private formats = new Map<string, Intl.DateTimeFormat>();
  private days = new WeakMap<Summary, { zone: string; days: [string, string] }>();
  private loads = 0;
  private focusDay = false;
  private opener: HTMLElement | null = null;
  private subscription: AbortController | null = null;
  private reloadTimer: ReturnType<typeof setTimeout> | undefined;
  private searchTimer: ReturnType<typeof setTimeout> | undefined;
  /** The list's position: its first page, or the page after/before a cursor. */
  private cursor: { after?: string; before?: string } = {};

  constructor() {
    super();
    this.view = 'month';
    this.pageSize = 10;
    this.filterBar = false;
    this.live = false;
    this._day = '';
    this._events = [];
    this._page = { items: [], pageInfo: null };
    this._loading = true;
    this._error = null;
    this._details = null;
    this._choices = null;
    this._rsvp = {};
  }

  // --- settings -----------------------------------------------------------------------------------

  private get lang_(): string {
    const lang = this.locale || this.closest('[lang]')?.getAttribute('lang') || navigator.language;
    try {
      return Intl.getCanonicalLocales(lang)[0] ?? 'en';
    } catch {
      return 'en';
    }
  }

  /** The zone days and times are shown in: `timezone`, else the site's, else the viewer's. */
  private get zone(): string {
    const site = SITE_ZONE.startsWith('@@') ? null : SITE_ZONE;
    return intlZone(this.timezone ?? '') ?? intlZone(site ?? '') ?? this.viewerZone;
  }

  private get viewerZone(): string {
    return Intl.DateTimeFormat().resolvedOptions().timeZone;
  }

  private get graphqlUrl(): string {
    return new URL(this.endpoint || '/graphql', import.meta.url).href;
  }

  /** The REST API root, under the `lang` language segment when one is given. */
  private get restRoot(): string {
    const segment = this.locale ? `/${encodeURIComponent(this.locale)}` : '';
    return new URL(`${segment}/calendar/events/v1`, this.graphqlUrl).href;
  }

  private filter(): EventFilter {
    const filter: EventFilter = {};
    const categories = list(this.categories);
    const tags = list(this.tags);
    const venues = list(this.venues).map(Number).filter(Number.isInteger);
    if (categories.length) filter.categories = categories;
    if (tags.length) filter.tags = tags;
    if (venues.length) filter.venues = venues;
    if (this.search?.trim()) filter.search = this.search.trim();
    return filter;
  }

  private today(): string {
    return dayIn(Date.now(), this.zone);
  }

  // --- lifecycle ----------------------------------------------------------------------------------

  override connectedCallback(): void {
    super.connectedCallback();
    if (this.live) this.subscribe();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.subscription?.abort();
    this.subscription = null;
    clearTimeout(this.reloadTimer);
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (!this.client || changed.has('endpoint')) this.client = new GraphqlClient(this.graphqlUrl);
    if (!this._day || changed.has('date'))
      this._day = /^\d{4}-\d\d-\d\d$/.test(this.date ?? '') ? this.date! : this.today();
    const filters = ['categories', 'tags', 'venues', 'search'] as const;
    if (filters.some((name) => changed.has(name))) this.cursor = {};
    // Not on the first update: connectedCallback has just opened the stream for these very properties
    // (opening it again would cancel that request on every first visit).
    if (this.hasUpdated && this.isConnected) {
      if (changed.has('live')) {
        if (this.live) this.subscribe();
        else {
          this.subscription?.abort();
          this.subscription = null;
        }
      } else if (filters.some((name) => changed.has(name)) && this.live) this.subscribe();
    }
  }

  protected override updated(changed: PropertyValues<this>): void {
    const reload = [
      'view',
      'date',
      'timezone',
      'categories',
      'tags',
      'venues',
      'search',
      'endpoint',
      'pageSize',
    ];
    if (reload.some((name) => changed.has(name as keyof CalendarView))) void this.load();
    else if (
      changed.has('_day') &&
      changed.get('_day') &&
      this.windowOf(changed.get('_day') as string) !== this.windowOf(this._day)
    )
      void this.load();
    if (this.filterBar && !this._choices && changed.has('filterBar')) void this.loadChoices();
    if (this.focusDay) {
      this.focusDay = false;
      this.renderRoot.querySelector<HTMLElement>(`[role=gridcell][data-date="${this._day}"]`)?.focus();
    }
  }

  /** What the loaded events cover: a month for the grid, a day for the day view. */
  private windowOf(day: string): string {
    return this.view === 'month' ? monthOf(day) : this.view === 'day' ? day : 'list';
  }

  // --- data ---------------------------------------------------------------------------------------

  /** Reads what the view shows; an older read finishing late is dropped. */
  async load(): Promise<void> {
    const ticket = ++this.loads;
    this._loading = true;
    this._error = null;
    try {
      if (this.view === 'list') {
        const page = await this.page(this.cursor);
        if (ticket !== this.loads) return;
        // Back past the first page (events removed meanwhile): start again from the top.
        if (!page.items.length && this.cursor.before) {
          this.cursor = {};
          return this.load();
        }
        this._page = page;
      } else {
        const [from, to] =
          this.view === 'month'
            ? [
                monthGrid(monthOf(this._day), firstDayOfWeek(this.lang_))[0]![0]!,
                addDays(monthOf(this._day), 42),
              ]
            : [this._day, addDays(this._day, 1)];
        const events = await this.between(from, to);
        if (ticket !== this.loads) return;
        this._events = events;
      }
    } catch (error) {
      if (ticket === this.loads) this._error = (error as Error).message || T.failed;
    } finally {
      if (ticket === this.loads) this._loading = false;
    }
  }

  /**
   * Every event overlapping [from, to) in the calendar's zone. The API compares dates as wall-clock
   * times in each event's own zone, so the window asked for is two days wider on each side; the
   * instants then decide, in the calendar's zone.
   */
  private async between(from: string, to: string): Promise<Summary[]> {
    const filter: EventFilter = {
      ...this.filter(),
      endsAfter: `${addDays(from, -2)} 00:00:00`,
      startsBefore: `${addDays(to, 2)} 00:00:00`,
      strictDates: true,
    };
    const events: Summary[] = [];
    let after: string | null = null;
    for (let page = 0; page < MONTH_PAGES; page++) {
      const variables: CalendarEventsQueryVariables = { filter, first: 50, ...(after ? { after } : {}) };
      const data = await this.client!.query(CalendarEventsDocument, variables);
      const connection = data.eventsConnection;
      events.push(...connection.edges.map((edge) => edge.node));
      if (!connection.pageInfo.hasNextPage || !connection.pageInfo.endCursor) break;
      after = connection.pageInfo.endCursor;
    }
    return events.filter((event) => {
      const [first, last] = this.daysOf(event);
      return last >= from && first < to;
    });
  }

  /** A page of the upcoming list (from today's start), forward or backward by cursor. */
  private async page(cursor: { after?: string; before?: string }) {
    const filter: EventFilter = {
      ...this.filter(),
      endsAfter: `${this.today()} 00:00:00`,
      strictDates: true,
    };
    const variables: CalendarEventsQueryVariables = cursor.before
      ? { filter, last: this.pageSize, before: cursor.before }
      : { filter, first: this.pageSize, ...(cursor.after ? { after: cursor.after } : {}) };
    const data = await this.client!.query(CalendarEventsDocument, variables);
    return {
      items: data.eventsConnection.edges.map((edge) => edge.node),
      pageInfo: data.eventsConnection.pageInfo,
    };
  }

  private async loadChoices(): Promise<void> {
    try {
      this._choices = await this.client!.query(CalendarFiltersDocument, {});
    } catch {
      // The bar keeps its "All" choices and the search field.
    }
  }

  private async openEvent(id: number, opener: HTMLElement): Promise<void> {
    this.opener = opener;
    this._details = 'loading';
    this._rsvp = {};
    await this.updateComplete;
    this.renderRoot.querySelector('dialog')?.showModal();
    try {
      const data = await this.client!.query(CalendarEventDocument, { id });
      this._details = data.event;
      if (!data.event) this.closeDetails();
    } catch {
      this.closeDetails();
    }
  }

  private closeDetails(): void {
    this.renderRoot.querySelector('dialog')?.close();
  }

  /** Reads the open event again (its availability after an RSVP), keeping the dialog as it is. */
  private async refreshDetails(id: number): Promise<void> {
    try {
      const data = await this.client!.query(CalendarEventDocument, { id });
      const open = this._details;
      if (data.event && open && open !== 'loading' && open.databaseId === id) this._details = data.event;
    } catch {
      // The availability shown stays as it was; the form's own answer has been shown.
    }
  }

  private onDialogClose = (): void => {
    this._details = null;
    this._rsvp = {};
    this.opener?.focus();
    this.opener = null;
  };

  /** Follows changes: any change among the filter's events reads the view again. */
  private subscribe(): void {
    this.subscription?.abort();
    const controller = new AbortController();
    this.subscription = controller;
    const { categories, tags, venues } = this.filter();
    const filter = {
      ...(categories ? { categories } : {}),
      ...(tags ? { tags } : {}),
      ...(venues ? { venues } : {}),
    };
    const again = (delay: number) => {
      if (controller.signal.aborted) return;
      setTimeout(() => {
        if (controller.signal.aborted) return;
        // At most once: what changed while the stream was down is read again.
        this.scheduleReload();
        this.subscribe();
      }, delay);
    };
    if (!this.client) this.client = new GraphqlClient(this.graphqlUrl);
    this.client
      .subscribe(CalendarEventChangedDocument, { filter }, () => this.scheduleReload(), controller.signal)
      .then(
        () => again(1000),
        () => again(5000),
      );
  }

  private scheduleReload(): void {
    clearTimeout(this.reloadTimer);
    this.reloadTimer = setTimeout(() => void this.load(), 250);
  }

  // --- dates --------------------------------------------------------------------------------------

  /** The first and last day an event covers in the calendar's zone (all-day: its own dates). */
  private daysOf(event: Summary): [string, string] {
    const zone = this.zone;
    const known = this.days.get(event);
    if (known?.zone === zone) return known.days;
    let days: [string, string];
    if (event.content.allDay) days = [event.localStartDate.slice(0, 10), event.localEndDate.slice(0, 10)];
    else {
      const first = dayIn(event.startDate, zone);
      const end = new Date(event.endDate).getTime();
      const last = end > new Date(event.startDate).getTime() ? dayIn(end - 1, zone) : first;
      days = [first, last < first ? first : last];
    }
    this.days.set(event, { zone, days });
    return days;
  }

  /** A day's events in the order they happen: the API lists by each event's local start (as TEC
   * does), which puts 23:30 in New York after 10:00 the next morning in Tokyo on the same day. */
  private eventsOn(day: string): Summary[] {
    return this._events
      .filter((event) => {
        const [first, last] = this.daysOf(event);
        return first <= day && day <= last;
      })
      .sort((a, b) => Date.parse(a.startDate) - Date.parse(b.startDate));
  }

  private format(options: Intl.DateTimeFormatOptions, zone = 'UTC'): Intl.DateTimeFormat {
    const key = JSON.stringify([this.lang_, zone, options]);
    let format = this.formats.get(key);
    if (!format)
      this.formats.set(key, (format = new Intl.DateTimeFormat(this.lang_, { ...options, timeZone: zone })));
    return format;
  }

  private dayLabel(day: string, style: 'full' | 'medium' = 'full'): string {
    return this.format({ dateStyle: style }).format(noonOf(day));
  }

  private timeOf(event: Summary): string {
    if (event.content.allDay) return T.allDay;
    return this.format({ timeStyle: 'short' }, this.zone).format(new Date(event.startDate));
  }

  // --- navigation ---------------------------------------------------------------------------------

  private setView(view: View): void {
    this.view = view;
    this.dispatchEvent(
      new CustomEvent('calendar-view-change', { detail: { view }, bubbles: true, composed: true }),
    );
  }

  private move(step: -1 | 1): void {
    if (this.view === 'list') {
      const info = this._page.pageInfo;
      if (step > 0 && info?.endCursor) this.cursor = { after: info.endCursor };
      else if (step < 0 && info?.startCursor) this.cursor = { before: info.startCursor };
      void this.load();
      return;
    }
    this._day = this.view === 'month' ? shiftMonths(this._day, step) : addDays(this._day, step);
  }

  private goToday(): void {
    if (this.view === 'list') {
      this.cursor = {};
      void this.load();
      return;
    }
    this._day = this.today();
  }

  /** The WAI-ARIA grid keys: arrows, Home/End (week), PageUp/PageDown (month), Enter (the day's events). */
  private onGridKey(event: KeyboardEvent): void {
    const day = this._day;
    const week = (weekdayOf(day) - firstDayOfWeek(this.lang_) + 7) % 7;
    const moves: Record<string, () => string> = {
      ArrowLeft: () => addDays(day, -1),
      ArrowRight: () => addDays(day, 1),
      ArrowUp: () => addDays(day, -7),
      ArrowDown: () => addDays(day, 7),
      Home: () => addDays(day, -week),
      End: () => addDays(day, 6 - week),
      PageUp: () => shiftMonths(day, -1),
      PageDown: () => shiftMonths(day, 1),
    };
    const move = moves[event.key];
    if (move) {
      event.preventDefault();
      this._day = move();
      this.focusDay = true;
      return;
    }
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      this.renderRoot.querySelector<HTMLElement>('.agenda button')?.focus();
    }
  }

  private onListKey(event: KeyboardEvent): void {
    // Escape from the month's agenda goes back to its day in the grid.
    if (event.key === 'Escape' && this.view === 'month') {
      event.preventDefault();
      this.renderRoot.querySelector<HTMLElement>(`[role=gridcell][data-date="${this._day}"]`)?.focus();
      return;
    }
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    const buttons = [...this.renderRoot.querySelectorAll<HTMLElement>('ol.events button')];
    const at = buttons.indexOf((this.renderRoot as ShadowRoot).activeElement as HTMLElement);
    const next = buttons[at + (event.key === 'ArrowDown' ? 1 : -1)];
    if (next) {
      event.preventDefault();
      next.focus();
    }
  }

  private onFilter(event: Event): void {
    const field = event.target as HTMLInputElement | HTMLSelectElement;
    const value = field.value;
    if (field.name === 'search') {
      clearTimeout(this.searchTimer);
      this.searchTimer = setTimeout(() => (this.search = value), event.type === 'change' ? 0 : 400);
      return;
    }
    if (field.name === 'categories' || field.name === 'tags' || field.name === 'venues')
      this[field.name] = value;
  }

  // --- RSVP -------------------------------------------------------------------------------------

  private rsvpOf(typeId: number): RsvpState {
    return this._rsvp[typeId] ?? NO_RSVP;
  }

  private setRsvp(typeId: number, change: Partial<RsvpState>): void {
    this._rsvp = { ...this._rsvp, [typeId]: { ...this.rsvpOf(typeId), ...change } };
  }

  /** The fields the browser's own constraints (required, type=email, min/max) find wrong. */
  private invalidFields(form: HTMLFormElement, type: TicketType): RsvpState['fields'] {
    const fields: RsvpState['fields'] = {};
    for (const name of RSVP_FIELDS) {
      const input = form.elements.namedItem(name) as HTMLInputElement | null;
      if (!input) continue;
      const blank = name === 'name' && !input.value.trim();
      if (!input.validity.valid || blank) fields[name] = this.fieldError(name, type);
    }
    return fields;
  }

  private fieldError(name: RsvpField, type: TicketType): string {
    return name === 'guests' ? T.invalidField.guests(type.maxPerRequest) : T.invalidField[name];
  }

  /**
   * Shows a refusal next to the form and in its alert region (emptied first, so the same words said
   * again are announced again), then moves focus to the first field at fault, else to the message.
   */
  private async refuse(typeId: number, message: string, fields: RsvpState['fields']): Promise<void> {
    this.setRsvp(typeId, { busy: false, message: '', fields });
    await this.updateComplete;
    this.setRsvp(typeId, { message });
    await this.updateComplete;
    const first = RSVP_FIELDS.find((name) => fields[name]);
    const target = first
      ? this.renderRoot.querySelector<HTMLElement>(`#rsvp-${typeId}-${first}`)
      : this.renderRoot.querySelector<HTMLElement>(`#rsvp-${typeId}-message`);
    target?.focus();
  }

  private async onRsvp(submit: SubmitEvent, eventId: number, type: TicketType): Promise<void> {
    submit.preventDefault();
    if (this.rsvpOf(type.id).busy) return;
    const form = submit.currentTarget as HTMLFormElement;
    const invalid = this.invalidFields(form, type);
    if (Object.keys(invalid).length) return this.refuse(type.id, T.refused.fields, invalid);
    const value = (name: RsvpField) => (form.elements.namedItem(name) as HTMLInputElement).value;
    this.setRsvp(type.id, { busy: true, message: '', fields: {} });
    try {
      const { rsvp } = await this.client!.mutate(CalendarRsvpDocument, {
        input: {
          ticketTypeId: type.id,
          name: value('name').trim(),
          email: value('email').trim(),
          guests: Number(value('guests')),
        },
      });
      this.setRsvp(type.id, { busy: false, confirmation: rsvp });
      await this.updateComplete;
      this.renderRoot.querySelector<HTMLElement>(`#rsvp-${type.id}-confirmation`)?.focus();
      await this.refreshDetails(eventId);
    } catch (error) {
      const code = error instanceof GraphqlError ? error.code : undefined;
      const params = error instanceof GraphqlError ? (error.data?.params ?? {}) : {};
      const fields: RsvpState['fields'] = {};
      for (const name of RSVP_FIELDS) if (params[name]) fields[name] = this.fieldError(name, type);
      if (code === 'TOO_MANY') fields.guests = this.fieldError('guests', type);
      const message =
        code === 'SOLD_OUT' || code === 'SALES_CLOSED'
          ? T.refused[code]
          : code === 'TOO_MANY'
            ? T.refused.TOO_MANY(type.maxPerRequest)
            : Object.keys(fields).length
              ? T.refused.fields
              : T.refused.other((error as Error).message || T.failed);
      // What refused it may have changed what is left (sold out meanwhile): the shown counts follow.
      if (code === 'SOLD_OUT' || code === 'SALES_CLOSED') await this.refreshDetails(eventId);
      await this.refuse(type.id, message, fields);
    }
  }

  // --- rendering ----------------------------------------------------------------------------------

  private heading(): string {
    if (this.view === 'month')
      return this.format({ month: 'long', year: 'numeric' }).format(noonOf(this._day));
    if (this.view === 'day') return this.dayLabel(this._day);
    const items = this._page.items;
    if (!items.length) return this.format({ month: 'long', year: 'numeric' }).format(noonOf(this.today()));
    const format = this.format({ dateStyle: 'medium' }, this.zone);
    return format.formatRange(new Date(items[0]!.startDate), new Date(items[items.length - 1]!.startDate));
  }

  override render() {
    const view = this.view;
    return html`
      <div part="calendar" aria-busy=${this._loading ? 'true' : 'false'}>
        <header part="header">
          <div class="group" part="navigation">
            <button
              class="btn"
              part="button"
              aria-label=${T.previous[view]}
              @click=${() => this.move(-1)}
              ?disabled=${view === 'list' && !this._page.pageInfo?.hasPreviousPage}
            >
              ‹
            </button>
            <button class="btn" part="button" @click=${this.goToday}>${this.todayWord()}</button>
            <button
              class="btn"
              part="button"
              aria-label=${T.next[view]}
              @click=${() => this.move(1)}
              ?disabled=${view === 'list' && !this._page.pageInfo?.hasNextPage}
            >
              ›
            </button>
          </div>
          <h2 id="title" part="title">${this.heading()}</h2>
          <div class="group" role="group" aria-label=${T.view} part="views">
            ${(['month', 'list', 'day'] as const).map(
              (name) =>
                html`<button
                  class="btn"
                  part="button"
                  aria-pressed=${view === name ? 'true' : 'false'}
                  @click=${() => this.setView(name)}
                >
                  ${T.views[name]}
                </button>`,
            )}
          </div>
        </header>
        ${this.filterBar ? this.renderFilters() : nothing}
        ${this._error ? html`<p class="error" role="alert">${T.failed} (${this._error})</p>` : nothing}
        ${view === 'month' ? this.renderMonth() : view === 'day' ? this.renderDay() : this.renderList()}
        <p class="sr-only" role="status">${this._loading ? T.loading : this.summary()}</p>
        <dialog part="details" aria-labelledby="details-title" @close=${this.onDialogClose}>
          ${this.renderDetails()}
        </dialog>
      </div>
    `;
  }

  private todayWord(): string {
    const word = new Intl.RelativeTimeFormat(this.lang_, { numeric: 'auto' }).format(0, 'day');
    return word.charAt(0).toLocaleUpperCase(this.lang_) + word.slice(1);
  }

  private summary(): string {
    if (this.view === 'list') return T.events(this._page.items.length);
    if (this.view === 'day') return T.events(this.eventsOn(this._day).length);
    return T.events(
      this._events.filter((event) => this.daysOf(event)[0].slice(0, 7) === this._day.slice(0, 7)).length,
    );
  }

  private renderFilters() {
    const choices = this._choices;
    const select = (
      name: 'categories' | 'tags' | 'venues',
      label: string,
      options: Array<[string, string]>,
    ) => {
      const current = list(this[name])[0] ?? '';
      return html`<label
        >${label}
        <select name=${name} @change=${this.onFilter}>
          <option value="" ?selected=${current === ''}>${T.all}</option>
          ${options.map(([value, text]) => html`<option value=${value} ?selected=${value === current}>${text}</option>`)}
          ${current && !options.some(([value]) => value === current) ? html`<option value=${current} selected>${current}</option>` : nothing}
        </select>
      </label>`;
    };
    return html`<form
      class="filters"
      part="filter-bar"
      role="search"
      aria-label=${T.filters}
      @submit=${(e: Event) => e.preventDefault()}
    >
      ${select(
        'categories',
        T.category,
        (choices?.categories.items ?? []).map((c) => [c.slug, c.name]),
      )}
      ${select(
        'tags',
        T.tag,
        (choices?.tags.items ?? []).map((t) => [t.slug, t.name]),
      )}
      ${select(
        'venues',
        T.venue,
        (choices?.venues.items ?? []).map((v) => [String(v.databaseId), v.name]),
      )}
      <label
        >${T.search}
        <input
          type="search"
          name="search"
          .value=${this.search ?? ''}
          @input=${this.onFilter}
          @change=${this.onFilter}
        />
      </label>
    </form>`;
  }

  private renderMonth() {
    const lang = this.lang_;
    const weeks = monthGrid(monthOf(this._day), firstDayOfWeek(lang));
    const month = this._day.slice(0, 7);
    const today = this.today();
    const short = this.format({ weekday: 'short' });
    const long = this.format({ weekday: 'long' });
    return html`
      <div role="grid" aria-labelledby="title" part="grid" @keydown=${this.onGridKey}>
        <div role="row">
          ${weeks[0]!.map(
            (day) =>
              html`<div role="columnheader" aria-label=${long.format(noonOf(day))}>
                <abbr>${short.format(noonOf(day))}</abbr>
              </div>`,
          )}
        </div>
        ${weeks.map(
          (week) =>
            html`<div role="row">
              ${week.map((day) => {
                const events = this._loading && !this._events.length ? [] : this.eventsOn(day);
                const classes = [
                  day.slice(0, 7) !== month ? 'outside' : '',
                  day === today ? 'today' : '',
                ].join(' ');
                return html`<div
                  role="gridcell"
                  part="day"
                  class=${classes}
                  data-date=${day}
                  tabindex=${day === this._day ? 0 : -1}
                  aria-selected=${day === this._day ? 'true' : 'false'}
                  @click=${() => (this._day = day)}
                >
                  <span class="num" aria-hidden="true">${Number(day.slice(8))}</span>
                  <span class="sr-only label">${`${this.dayLabel(day)}, ${T.events(events.length)}`}</span>
                  <ul class="chips" aria-hidden="true">
                    ${events.slice(0, CHIPS).map((event) => this.renderChip(event))}
                  </ul>
                  ${events.length > CHIPS ? html`<span class="more" aria-hidden="true">+${events.length - CHIPS}</span>` : nothing}
                  <span class="dots" aria-hidden="true"
                    >${events.slice(0, 4).map(() => html`<span class="dot"></span>`)}</span
                  >
                </div>`;
              })}
            </div>`,
        )}
      </div>
      <section class="agenda" part="agenda" aria-labelledby="agenda-title">
        <h3 id="agenda-title">${this.dayLabel(this._day)}</h3>
        ${this.renderEvents(this.eventsOn(this._day))}
      </section>
    `;
  }

  private renderChip(event: Summary) {
    const status = event.eventStatus === 'scheduled' ? '' : ` ${event.eventStatus}`;
    return html`<li>
      <button
        tabindex="-1"
        class=${`chip${status}`}
        part="event"
        data-event-id=${event.databaseId}
        @click=${(e: Event) => {
          e.stopPropagation();
          void this.openEvent(
            event.databaseId,
            this.renderRoot.querySelector<HTMLElement>('[role=gridcell][tabindex="0"]') ??
              (e.currentTarget as HTMLElement),
          );
        }}
      >
        ${event.content.allDay ? nothing : html`<span>${this.timeOf(event)} </span>`}<span class="what"
          >${event.title}</span
        >
      </button>
    </li>`;
  }

  private renderDay() {
    return html`<section class="agenda" part="agenda" aria-labelledby="title">
      ${this.renderEvents(this.eventsOn(this._day))}
    </section>`;
  }

  private renderList() {
    const info = this._page.pageInfo;
    return html`
      <div class="list" style=${`--_rows: ${this.pageSize}`}>
        ${this.renderEvents(this._page.items, true)}
      </div>
      <nav class="pager" part="pager" aria-label=${T.views.list}>
        <button class="btn" part="button" ?disabled=${!info?.hasPreviousPage} @click=${() => this.move(-1)}>
          ‹ ${T.earlier}
        </button>
        <button class="btn" part="button" ?disabled=${!info?.hasNextPage} @click=${() => this.move(1)}>
          ${T.later} ›
        </button>
      </nav>
    `;
  }

  private renderEvents(events: Summary[], withDate = false) {
    if (!events.length) return html`<p class="empty">${this._loading ? T.loading : T.noEvents}</p>`;
    const dateFormat = this.format({ weekday: 'short', month: 'short', day: 'numeric' }, this.zone);
    return html`<ol
      class="events"
      part="list"
      aria-labelledby=${this.view === 'month' ? 'agenda-title' : 'title'}
      @keydown=${this.onListKey}
    >
      ${events.map((event) => {
        const venue = event.content.venues[0];
        const status = T.status[event.eventStatus];
        const when = withDate
          ? `${event.content.allDay ? this.dayLabel(event.localStartDate.slice(0, 10), 'medium') : dateFormat.format(new Date(event.startDate))} · ${this.timeOf(event)}`
          : this.timeOf(event);
        return html`<li>
          <button
            class=${`row ${event.eventStatus}`}
            part="event"
            data-event-id=${event.databaseId}
            @click=${(e: Event) => void this.openEvent(event.databaseId, e.currentTarget as HTMLElement)}
          >
            <span class="when">${when}</span>
            <span
              ><span class="what">${event.title}</span
              >${status ? html`<span class="badge">${status}</span>` : nothing}</span
            >
            ${venue ? html`<span class="where">${[venue.name, venue.city].filter(Boolean).join(', ')}</span>` : nothing}
          </button>
        </li>`;
      })}
    </ol>`;
  }

  private renderDetails() {
    const event = this._details;
    if (!event) return nothing;
    if (event === 'loading') return html`<p>${T.loading}</p>`;
    const content = event.content;
    const status = T.status[event.eventStatus];
    const eventZone = intlZone(event.timezone) ?? 'UTC';
    const start = new Date(event.startDate);
    const end = new Date(event.endDate);
    const range = (zone: string) =>
      this.format(
        {
          weekday: 'long',
          year: 'numeric',
          month: 'long',
          day: 'numeric',
          hour: 'numeric',
          minute: '2-digit',
          timeZoneName: 'short',
        },
        zone,
      ).formatRange(start, end);
    const when = content.allDay
      ? this.format({ dateStyle: 'full' }).formatRange(
          noonOf(event.localStartDate.slice(0, 10)),
          noonOf(event.localEndDate.slice(0, 10)),
        )
      : range(eventZone);
    const viewer = this.viewerZone;
    const sameZone = content.allDay || wallClock(start, viewer) === wallClock(start, eventZone);
    const website = safeUrl(content.website);
    // Where it is attended online (TEC's virtual events); an event with no venue is online at its website.
    const online =
      event.attendanceMode !== 'offline'
        ? safeUrl(content.onlineUrl)
        : !content.venues.length
          ? website
          : null;
    const excerpt = plainText(content.excerpt);
    const google = new URL('https://calendar.google.com/calendar/render');
    google.searchParams.set('action', 'TEMPLATE');
    google.searchParams.set('text', event.title);
    google.searchParams.set(
      'dates',
      content.allDay
        ? `${event.localStartDate.slice(0, 10).replace(/-/g, '')}/${addDays(event.localEndDate.slice(0, 10), 1).replace(/-/g, '')}`
        : `${compactUtc(event.startDate)}/${compactUtc(event.endDate)}`,
    );
    if (intlZone(event.timezone) === event.timezone) google.searchParams.set('ctz', event.timezone);
    const place = content.venues
      .map((v) => [v.name, v.address, v.city].filter(Boolean).join(', '))
      .join('; ');
    if (place) google.searchParams.set('location', place);
    if (excerpt) google.searchParams.set('details', excerpt);
    return html`
      <button class="btn close" part="button" aria-label=${T.close} @click=${this.closeDetails}>✕</button>
      <h2 id="details-title">
        ${event.title}${status ? html`<span class="badge" data-status=${event.eventStatus}>${status}</span>` : nothing}
      </h2>
      ${content.eventStatusReason ? html`<p>${content.eventStatusReason}</p>` : nothing}
      <dl>
        <dt>${T.when}</dt>
        <dd data-field="when">${when}</dd>
        ${
          sameZone
            ? nothing
            : html`<dt>${T.yourTime}</dt>
                <dd data-field="viewer-time">${range(viewer)}</dd>`
        }
        ${
          content.venues.length
            ? html`<dt>${T.where}</dt>
                <dd data-field="venue">
                  ${content.venues.map((venue) => {
                    const address = [venue.address, venue.city, venue.stateProvince, venue.zip, venue.country]
                      .filter(Boolean)
                      .join(', ');
                    const query =
                      venue.geoLat != null && venue.geoLng != null
                        ? `${venue.geoLat},${venue.geoLng}`
                        : `${venue.name}, ${address}`;
                    const map = `https://www.google.com/maps/search/?api=1&query=${encodeURIComponent(query)}`;
                    return html`<div>
                      <strong>${venue.name}</strong><br />${address}
                      ${venue.showMapLink !== false ? html`<br /><a href=${map} target="_blank" rel="noopener" data-link="map">${T.map}</a>` : nothing}
                    </div>`;
                  })}
                </dd>`
            : nothing
        }
        ${
          online
            ? html`<dt>${T.online}</dt>
                <dd data-field="online">
                  <a href=${online} target="_blank" rel="noopener">${online}</a>
                </dd>`
            : nothing
        }
        ${
          content.organizers.length
            ? html`<dt>${T.organizers}</dt>
                <dd data-field="organizers">
                  ${content.organizers.map(
                    (o) =>
                      html`<div>
                        ${o.name}${o.email ? html` · <a href=${`mailto:${o.email}`}>${o.email}</a>` : nothing}${o.phone ? html` · ${o.phone}` : nothing}${safeUrl(o.website) ? html` · <a href=${safeUrl(o.website)!} target="_blank" rel="noopener">${T.website}</a>` : nothing}
                      </div>`,
                  )}
                </dd>`
            : nothing
        }
        ${
          content.cost?.formatted
            ? html`<dt>${T.cost}</dt>
                <dd data-field="cost">${content.cost.formatted}</dd>`
            : nothing
        }
        ${
          website && website !== online
            ? html`<dt>${T.website}</dt>
                <dd><a href=${website} target="_blank" rel="noopener">${website}</a></dd>`
            : nothing
        }
      </dl>
      ${excerpt ? html`<p>${excerpt}</p>` : nothing}
      ${content.withheld || !event.ticketTypes.length ? nothing : this.renderTickets(event)}
      <div class="actions">
        <a
          class="btn"
          part="button"
          data-link="ics"
          href=${`${this.restRoot}/events/${event.databaseId}.ics`}
          download
          >${T.ics}</a
        >
        <a class="btn" part="button" data-link="google" href=${google.href} target="_blank" rel="noopener"
          >${T.google}</a
        >
      </div>
    `;
  }

  /** Each ticket type: its price, what is left, and a form while it can be reserved. */
  private renderTickets(event: Details) {
    const canceled = event.eventStatus === 'canceled';
    return html`<section class="tickets" part="tickets" aria-labelledby="tickets-title">
      <h3 id="tickets-title">${T.tickets}</h3>
      <ul>
        ${event.ticketTypes.map((type) => {
          const state = this.rsvpOf(type.id);
          const { soldOut } = type.availability;
          const open = type.onSale && !canceled && (!soldOut || type.waitlist);
          return html`<li class="ticket" data-ticket-type=${type.id} aria-labelledby=${`ticket-${type.id}`}>
            <h4 id=${`ticket-${type.id}`}>
              ${type.name} <span class="price" data-field="price">${this.priceOf(type)}</span>
            </h4>
            <p class="availability" data-field="availability">${this.availabilityOf(type, event)}</p>
            ${type.description ? html`<p class="description">${type.description}</p>` : nothing}
            <div aria-live="polite" data-field="confirmation">
              ${state.confirmation ? this.renderConfirmation(type.id, state.confirmation) : nothing}
            </div>
            <p
              class="error"
              role="alert"
              id=${`rsvp-${type.id}-message`}
              tabindex="-1"
              data-field="rsvp-error"
            >
              ${state.message}
            </p>
            ${open && !state.confirmation ? this.renderRsvpForm(event.databaseId, type, state) : nothing}
          </li>`;
        })}
      </ul>
    </section>`;
  }

  private priceOf(type: TicketType): string {
    const amount = Number(type.price);
    if (type.kind === 'RSVP' || !type.price || !(amount > 0)) return T.free;
    try {
      return new Intl.NumberFormat(this.lang_, { style: 'currency', currency: type.currency }).format(amount);
    } catch {
      return [type.price, type.currency].filter(Boolean).join(' ');
    }
  }

  private availabilityOf(type: TicketType, event: Details): string {
    const { available, soldOut, waitlist } = type.availability;
    if (!type.onSale) {
      const start = type.salesStartUtc ? new Date(type.salesStartUtc) : null;
      if (start && start.getTime() > Date.now() && new Date(event.endDate) > start) {
        const zone = intlZone(event.timezone) ?? 'UTC';
        return T.opens(this.format({ dateStyle: 'medium', timeStyle: 'short' }, zone).format(start));
      }
      return T.salesClosed;
    }
    if (soldOut) return type.waitlist ? T.waitlistOpen(waitlist) : T.soldOut;
    return available === null ? T.unlimited : T.placesLeft(available);
  }

  private renderConfirmation(typeId: number, confirmation: CalendarRsvpMutation['rsvp']) {
    const places = T.places(confirmation.attendee.guests);
    const waitlisted = confirmation.attendee.status === 'WAITLISTED';
    return html`<div class="confirmation" data-status=${confirmation.attendee.status}>
      <p id=${`rsvp-${typeId}-confirmation`} tabindex="-1">
        <strong>${waitlisted ? T.waitlisted(places) : T.going(places)}</strong>
      </p>
      <p>${T.token}: <code data-field="token">${confirmation.token}</code><br />${T.keepToken}</p>
    </div>`;
  }

  private renderRsvpForm(eventId: number, type: TicketType, state: RsvpState) {
    const id = (name: string) => `rsvp-${type.id}-${name}`;
    const described = (name: RsvpField, hint = false) =>
      [hint ? id(`${name}-hint`) : '', state.fields[name] ? id(`${name}-error`) : '']
        .filter(Boolean)
        .join(' ') || nothing;
    const fieldError = (name: RsvpField) =>
      state.fields[name]
        ? html`<span class="field-error" id=${id(`${name}-error`)}>${state.fields[name]}</span>`
        : nothing;
    const invalid = (name: RsvpField) => (state.fields[name] ? 'true' : 'false');
    const waitlist = type.availability.soldOut && type.waitlist;
    return html`<form
      class="rsvp"
      part="rsvp"
      novalidate
      aria-labelledby=${`ticket-${type.id}`}
      @submit=${(e: SubmitEvent) => void this.onRsvp(e, eventId, type)}
    >
      <div class="field">
        <label for=${id('name')}>${T.name}</label>
        <input
          id=${id('name')}
          name="name"
          type="text"
          autocomplete="name"
          required
          maxlength="200"
          aria-invalid=${invalid('name')}
          aria-describedby=${described('name')}
        />
        ${fieldError('name')}
      </div>
      <div class="field">
        <label for=${id('email')}>${T.email}</label>
        <input
          id=${id('email')}
          name="email"
          type="email"
          autocomplete="email"
          required
          maxlength="254"
          aria-invalid=${invalid('email')}
          aria-describedby=${described('email')}
        />
        ${fieldError('email')}
      </div>
      <div class="field">
        <label for=${id('guests')}>${T.guests}</label>
        <input
          id=${id('guests')}
          name="guests"
          type="number"
          inputmode="numeric"
          required
          min="1"
          max=${type.maxPerRequest}
          step="1"
          value="1"
          aria-invalid=${invalid('guests')}
          aria-describedby=${described('guests', true)}
        />
        <span class="hint" id=${id('guests-hint')}>${T.guestsHint(type.maxPerRequest)}</span>
        ${fieldError('guests')}
      </div>
      <button class="btn primary" part="button" type="submit" aria-disabled=${state.busy ? 'true' : 'false'}>
        ${state.busy ? T.sending : waitlist ? T.joinWaitlist : T.reserve}
      </button>
    </form>`;
  }
}

// Defined once, even when two copies of the script load.
if (!customElements.get('calendar-view')) customElements.define('calendar-view', CalendarView);

declare global {
  interface HTMLElementTagNameMap {
    'calendar-view': CalendarView;
  }
}
