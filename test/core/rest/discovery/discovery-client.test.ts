import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CalendarClient, CalendarError } from '../../../../examples/client.js';
import { createEvent, createOrganizer, createVenue } from '../../../helpers/fixtures.js';
import { type Harness, startHarness } from '../../../helpers/harness.js';
import { createUser } from '../../../helpers/users.js';

// The codegen workflow end to end: the typed example client (examples/client.ts, over the documents
// `npm run codegen` generates) talks to a running server, and TypeScript refuses misuse of its types.

const EXAMPLES = fileURLToPath(new URL('../../../../examples/', import.meta.url));

let h: Harness;
let server: Server;
let client: CalendarClient;
let endpoint: string;
let linkedId: number;
let venueId: number;
let venueName: string;

beforeAll(async () => {
  h = await startHarness();
  const venue = await createVenue(h.db);
  venueId = venue.id;
  venueName = venue.name;
  const organizer = await createOrganizer(h.db);
  linkedId = (
    await createEvent(h.db, { title: 'Harbour Concert', venueIds: [venue.id], organizerIds: [organizer.id] })
  ).id;
  await createEvent(h.db, { title: 'Quiet Reading' });
  await createEvent(h.db, { title: 'Harbour Market' });
  server = h.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  client = new CalendarClient(endpoint);
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await h?.close();
});

describe('the example client against a running server', () => {
  it('lists upcoming events with filters and paging', async () => {
    const all = await client.upcomingEvents();
    expect(all.pageInfo).toEqual({ page: 1, perPage: 10, total: 3, totalPages: 1 });
    const harbour = await client.upcomingEvents({ search: 'Harbour' }, 1, 1);
    expect(harbour.pageInfo).toMatchObject({ total: 2, totalPages: 2, perPage: 1 });
    expect(harbour.items).toHaveLength(1);
    expect(harbour.items[0]!.title).toMatch(/^Harbour /);
  });

  it('walks a connection page by page by cursor, as the numbered list orders it', async () => {
    const walked: Array<{ id: string; databaseId: number; title: string }> = [];
    for await (const event of client.allEvents({}, 2)) walked.push(event);
    const numbered = await client.upcomingEvents({}, 1, 50);
    expect(walked.map((event) => event.databaseId)).toEqual(numbered.items.map((item) => item.databaseId));
    // Global ids: opaque, and not the numeric id.
    expect(new Set(walked.map((event) => event.id)).size).toBe(3);
    expect(walked.every((event) => event.id !== String(event.databaseId))).toBe(true);
  });

  it('reads an event with its venue and organizers', async () => {
    const event = await client.event(linkedId);
    if (!event) throw new Error('the event is missing');
    expect(event.title).toBe('Harbour Concert');
    expect(event.venues.map((venue) => venue.name)).toEqual([venueName]);
    expect(event.organizers).toHaveLength(1);
  });

  it('creates an event with credentials, and is refused without', async () => {
    const editor = await createUser(h, 'editor');
    const authenticated = new CalendarClient(endpoint, editor);
    const created = await authenticated.createEvent({
      title: 'Codegen Launch',
      startDate: '2031-05-01 18:00:00',
      endDate: '2031-05-01 20:00:00',
      timezone: 'Europe/Paris',
      venues: [{ id: venueId }],
    });
    expect(created).toMatchObject({
      title: 'Codegen Launch',
      status: 'publish',
      timezone: 'Europe/Paris',
      venues: [{ databaseId: venueId, name: venueName }],
    });
    expect((await authenticated.event(created.databaseId))?.title).toBe('Codegen Launch');
    const refused = await client
      .createEvent({ title: 'Nope', startDate: 'tomorrow', endDate: 'tomorrow' })
      .catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(CalendarError);
    expect((refused as CalendarError).code).toBe('rest_forbidden');
  });

  it('follows changes over SSE with a typed subscription', async () => {
    const editor = await createUser(h, 'editor');
    const authenticated = new CalendarClient(endpoint, editor);
    const stop = new AbortController();
    const changes = client.eventChanges({}, stop.signal);
    const first = changes.next();
    // The stream opens on the first `next`; write until it has heard one (it may open after a write).
    let written = 0;
    const writing = (async () => {
      while (!stop.signal.aborted && written < 50) {
        await authenticated.createEvent({
          title: `Live ${++written}`,
          startDate: '2031-06-01 18:00:00',
          endDate: '2031-06-01 20:00:00',
        });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const { value } = await first;
    stop.abort();
    await writing;
    expect(value).toMatchObject({
      operation: 'created',
      event: { title: expect.stringMatching(/^Live \d+$/), status: 'publish', contentWithheld: false },
    });
    expect(value!.event!.databaseId).toBe(value!.id);
  });

  it('surfaces the service error code', async () => {
    const error = await client.event(999_999).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CalendarError);
    expect((error as CalendarError).code).toBe('rest-event-not-found');
  });
});

describe('the generated types', () => {
  const PROBE = `${EXAMPLES}__probe__.ts`;
  const probeSource = [
    "import { CalendarClient } from './client.js';",
    "const client = new CalendarClient('http://localhost:4000/graphql');",
    'export async function probe(): Promise<string> {',
    "  await client.upcomingEvents({ featured: 'yes' }); // error: a Boolean filter",
    '  const title: number = (await client.upcomingEvents()).items[0]!.title; // error: title is a string',
    "  await client.event('7'); // error: id is an Int",
    "  await client.createEvent({ title: 'No dates' }); // error: startDate and endDate are required",
    "  const venue: string = (await client.event(1))?.venues[0]?.name ?? ''; // the event may be null",
    "  const created: number = (await client.createEvent({ title: 'x', startDate: 'now', endDate: 'now' })).databaseId;",
    '  return `${title}${venue}${created}`;',
    '}',
  ].join('\n');

  it('type-check the client, and refuse what the schema does not allow', () => {
    const config = ts.readConfigFile(
      fileURLToPath(new URL('../../../../tsconfig.json', import.meta.url)),
      (path) => ts.sys.readFile(path),
    );
    const { options } = ts.parseJsonConfigFileContent(
      config.config,
      ts.sys,
      fileURLToPath(new URL('../../../..', import.meta.url)),
    );
    const host = ts.createCompilerHost(options);
    const readFile = host.readFile.bind(host);
    const getSourceFile = host.getSourceFile.bind(host);
    host.fileExists = (path) => path === PROBE || ts.sys.fileExists(path);
    host.readFile = (path) => (path === PROBE ? probeSource : readFile(path));
    host.getSourceFile = (path, language, onError) =>
      path === PROBE
        ? ts.createSourceFile(path, probeSource, language)
        : getSourceFile(path, language, onError);
    const program = ts.createProgram([`${EXAMPLES}client.ts`, PROBE], options, host);
    const diagnostics = ts.getPreEmitDiagnostics(program);
    const show = (d: ts.Diagnostic) =>
      `${d.file ? `${d.file.fileName}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}` : ''} ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
    expect(diagnostics.filter((d) => d.file?.fileName !== PROBE).map(show)).toEqual([]);
    const lines = diagnostics
      .filter((d) => d.file?.fileName === PROBE)
      .map((d) => d.file!.getLineAndCharacterOfPosition(d.start!).line + 1);
    expect(lines).toEqual([4, 5, 6, 7]);
  }, 60_000);
});
