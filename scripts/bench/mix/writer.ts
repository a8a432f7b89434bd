// The mix's writes: an administrator's edits through both APIs at a fixed rate, and the signed-in
// users the bench makes before its servers start.

import type { Config } from '../../../src/core/config/config.js';
import { createDb } from '../../../src/core/db/client.js';
import { WritePipeline } from '../../../src/core/db/transactions.js';
import { recordChanges } from '../../../src/sync/change-log.js';
import { createUser } from '../../../src/users/users.js';
import { API, type Catalogue, addDays, random, ymd } from './reads.js';

/** An administrator and one application password, made in the database before the servers start. */
export async function createAdministrator(url: string, config: Config): Promise<string> {
  return createSignedIn(url, config, 'administrator', 'bench-editor');
}

/** A user of `role` and the HTTP Basic credentials of its application password. */
export async function createSignedIn(
  url: string,
  config: Config,
  role: 'administrator' | 'editor',
  login: string,
): Promise<string> {
  const db = await createDb(url);
  try {
    const writes = new WritePipeline();
    recordChanges(writes, config);
    const { password } = await createUser({ db, config, writes }, { login, role });
    return `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;
  } finally {
    await db.$disconnect();
  }
}

export type WriteKind = 'text' | 'dates' | 'terms' | 'venue' | 'create' | 'trash';
/** An editor's day: mostly text, some moved dates, term and venue changes, a few creates and trashes. */
const WRITE_MIX: Array<[WriteKind, number]> = [
  ['text', 60],
  ['dates', 15],
  ['terms', 10],
  ['venue', 8],
  ['create', 4],
  ['trash', 3],
];

const UPDATE = `mutation BenchUpdate($id: Int!, $input: UpdateEventInput!) { updateEvent(id: $id, input: $input) { databaseId } }`;
const CREATE = `mutation BenchCreate($input: CreateEventInput!) { createEvent(input: $input) { databaseId } }`;
const TRASH = `mutation BenchTrash($id: Int!) { deleteEvent(id: $id) { databaseId } }`;

const shiftWall = (wall: string, days: number) =>
  new Date(Date.parse(`${wall.replace(' ', 'T')}Z`) + days * 86_400_000)
    .toISOString()
    .slice(0, 19)
    .replace('T', ' ');

/**
 * Writes at a fixed rate while it runs, alternating REST and GraphQL, each sent on schedule whether
 * or not the one before has answered (an editor does not wait for another's save). Trashes only what
 * it created, so the read URLs keep answering.
 */
export class Writer {
  private sent = 0;
  private failed = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly created: number[] = [];
  private readonly next = random(7);
  private sequence = 0;
  private started = 0;
  readonly droppedByKind: Partial<Record<WriteKind, { writes: number; dropped: number }>> = {};

  constructor(
    private readonly origin: string,
    private readonly authorization: string,
    private readonly c: Catalogue,
    /** The server's count of answers dropped so far: read around each write that runs alone. */
    private readonly dropped?: () => Promise<number>,
  ) {}

  /** The write, and what it dropped when no other write overlapped it (each kind's cost, measured). */
  private async measured(kind: WriteKind, write: () => Promise<void>): Promise<void> {
    const alone = this.inFlight.size === 0 && this.dropped;
    const sequence = ++this.started;
    const before = alone ? await this.dropped!() : 0;
    await write();
    if (!alone || this.started !== sequence) return;
    const tally = (this.droppedByKind[kind] ??= { writes: 0, dropped: 0 });
    tally.writes++;
    tally.dropped += (await this.dropped!()) - before;
  }

  start(rate: number): void {
    const started = performance.now();
    let due = 0;
    const tick = () => {
      const write = this.write().finally(() => this.inFlight.delete(write));
      this.inFlight.add(write);
      due++;
      this.timer = setTimeout(tick, Math.max(0, started + (due * 1000) / rate - performance.now()));
    };
    tick();
  }

  /** Writes sent and failed so far. */
  counts = () => ({ sent: this.sent, failed: this.failed });

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    await Promise.all(this.inFlight);
  }

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }

  private kind(): WriteKind {
    let roll = this.next() * WRITE_MIX.reduce((sum, [, weight]) => sum + weight, 0);
    for (const [kind, weight] of WRITE_MIX) if ((roll -= weight) < 0) return kind;
    return 'text';
  }

  private async write(): Promise<void> {
    const viaRest = this.sequence++ % 2 === 0;
    let kind = this.kind();
    if (kind === 'trash' && this.created.length === 0) kind = 'create';
    const event = this.pick(this.c.editable);
    const n = this.sequence;
    // REST field names and GraphQL input names side by side.
    let rest: Record<string, unknown> = {};
    let graphql: Record<string, unknown> = {};
    switch (kind) {
      case 'text':
        if (this.next() < 0.5) rest = graphql = { title: `Edited event ${n}` };
        else rest = graphql = { description: `<p>Updated details, revision ${n}.</p>` };
        break;
      case 'dates': {
        // A few days either way, well inside the default window.
        const days = this.pick([-3, -2, -1, 1, 2, 3]);
        const startDate = shiftWall(event.localStart, days);
        const endDate = shiftWall(event.localEnd, days);
        rest = { start_date: startDate, end_date: endDate };
        graphql = { startDate, endDate };
        break;
      }
      case 'terms': {
        const category = this.pick(this.c.categories).id;
        const tag = this.pick(this.c.tags).id;
        rest = { categories: [category], tags: [tag] };
        graphql = { categories: [{ id: category }], tags: [{ id: tag }] };
        break;
      }
      case 'venue': {
        const venue = this.pick(this.c.venueIds);
        rest = { venue };
        graphql = { venues: [{ id: venue }] };
        break;
      }
      case 'create': {
        const startDate = `${addDays(ymd(new Date()), 10 + Math.floor(this.next() * 300))} 19:00:00`;
        const endDate = startDate.replace('19:00:00', '21:00:00');
        const category = this.pick(this.c.categories).id;
        const venue = this.pick(this.c.venueIds);
        const title = `New event ${n}`;
        rest = {
          title,
          start_date: startDate,
          end_date: endDate,
          status: 'publish',
          categories: [category],
          venue,
        };
        graphql = {
          title,
          startDate,
          endDate,
          status: 'publish',
          categories: [{ id: category }],
          venues: [{ id: venue }],
        };
        break;
      }
      case 'trash':
        break;
    }
    let id = event.id;
    if (kind === 'trash')
      id = this.created.splice(Math.floor(this.next() * this.created.length), 1)[0] as number;
    try {
      let created: number | undefined;
      await this.measured(kind, async () => {
        created = viaRest ? await this.rest(kind, id, rest) : await this.graphql(kind, id, graphql);
      });
      if (created !== undefined) this.created.push(created);
      if (kind === 'dates') {
        event.localStart = (rest.start_date as string) ?? event.localStart;
        event.localEnd = (rest.end_date as string) ?? event.localEnd;
      }
    } catch {
      this.failed++;
    } finally {
      this.sent++;
    }
  }

  /** One write over REST; the new event's id for a create. */
  private async rest(
    kind: WriteKind,
    id: number,
    body: Record<string, unknown>,
  ): Promise<number | undefined> {
    const path = kind === 'create' ? `${API}/events` : `${API}/events/${id}`;
    const response = await fetch(`${this.origin}${path}`, {
      method: kind === 'trash' ? 'DELETE' : 'POST',
      headers: { authorization: this.authorization, 'content-type': 'application/json' },
      ...(kind === 'trash' ? {} : { body: JSON.stringify(body) }),
    });
    const answer = (await response.json()) as { id?: number };
    if (!response.ok) throw new Error(`REST ${kind}: HTTP ${response.status}`);
    return kind === 'create' ? answer.id : undefined;
  }

  /** The same write over GraphQL. */
  private async graphql(
    kind: WriteKind,
    id: number,
    input: Record<string, unknown>,
  ): Promise<number | undefined> {
    const [query, variables] =
      kind === 'create' ? [CREATE, { input }] : kind === 'trash' ? [TRASH, { id }] : [UPDATE, { id, input }];
    const response = await fetch(`${this.origin}/graphql`, {
      method: 'POST',
      headers: { authorization: this.authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    const answer = (await response.json()) as {
      data?: Record<string, { databaseId: number } | null>;
      errors?: unknown;
    };
    if (!response.ok || answer.errors) throw new Error(`GraphQL ${kind}: HTTP ${response.status}`);
    return kind === 'create' ? answer.data?.createEvent?.databaseId : undefined;
  }
}
