// The RSVP row of `npm run bench` (issue #53): confirmed reservations per second while every client
// reserves on the same ticket type of one event, so each request waits for the one lock a type's
// places are counted and written under (PostgreSQL's row lock, SQLite's single writer). The type has
// the largest capacity a type may have and no waitlist: the run never sells out, so every answer
// should be a confirmation, and the row measures the steady state of "confirm a reservation".
//
// The clients are in this process (node:http, one kept-alive socket each), not wrk: wrk drops the
// requests still in flight when its time is up, which the servers commit all the same, and the check
// after the run needs every answer. With several servers (PostgreSQL: two instances on the same
// database) the clients are spread over them. After the run, the check: the attendees going equal the
// confirmations answered (a request whose answer was lost to a socket error may or may not have
// committed: between the two), every answer was a confirmation, and the places held never exceed the
// capacity. It throws otherwise.
import { Agent, type IncomingMessage, request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { createDb } from '../../src/core/db/client.js';
import { LIMITS } from '../../src/tickets/model.js';

export const RSVP_PATH = '/calendar/tickets/v1/attendees';

/**
 * The RSVP rate limits (per address, per e-mail) turned off for the bench's servers: every client is
 * 127.0.0.1, so any such limit would measure refusals. 0 is "no limit". Set in the environment
 * beforehand, a value is kept (a run can measure the limits).
 */
export const RSVP_LIMITS_OFF = {
  CALENDAR_RSVP_PER_ADDRESS: '0',
  CALENDAR_RSVP_PER_EMAIL: '0',
} as const;

/** What the row needs of a server child of `npm run bench`. */
export interface RsvpServer {
  readonly origin: string;
  resetSql(): Promise<number>;
  sql(): Promise<number>;
  cpuMicros(): Promise<number>;
}

export interface RsvpType {
  eventId: number;
  typeId: number;
  capacity: number;
}

/**
 * The type the row reserves on: an RSVP on the published, unprotected event that starts last (far
 * from the pages the other rows read, and long before it ends), made before any server starts.
 */
export async function prepareRsvp(url: string): Promise<RsvpType> {
  const db = await createDb(url);
  try {
    const event = await db.event.findFirst({
      where: { status: 'publish', password: null, endsAt: { gt: new Date() } },
      orderBy: [{ startsAt: 'desc' }, { id: 'desc' }],
      select: { id: true },
    });
    if (!event) throw new Error('the seeded database has no published event ahead to take RSVPs');
    const capacity = LIMITS.maxCapacity;
    const type = await db.ticketType.create({
      data: { eventId: event.id, kind: 'RSVP', name: 'Bench RSVP', capacity, waitlist: false },
      select: { id: true },
    });
    return { eventId: event.id, typeId: type.id, capacity };
  } finally {
    await db.$disconnect();
  }
}

export interface RsvpResult {
  /** Answers received in the measured run (confirmations and refusals). */
  requests: number;
  /** Confirmed reservations per second of the measured run. */
  rps: number;
  p50: number;
  p99: number;
  /** Answers other than a 2xx confirmation, and requests whose answer never came. */
  non2xx: number;
  errors: number;
  /** Bytes received, status line and headers included. */
  bytes: number;
  cpuPerRequest: number;
  sqlPerRequest: number;
  /** What the check after the run found (warm-up included). */
  check: { going: number; held: number; confirmed: number; lost: number; capacity: number };
}

interface Answer {
  status: number;
  /** Bytes on the wire, less the chunked framing. */
  bytes: number;
  body: string;
}

interface Phase {
  seconds: number;
  latencies: number[];
  confirmed: number;
  bytes: number;
  /** Refusals by status and code (`429 rate_limited`), and 2xx answers that were not a confirmation. */
  refusals: Map<string, number>;
  lost: number;
  lostReasons: Set<string>;
}

const headerBytes = (response: IncomingMessage) => {
  let bytes = `HTTP/1.1 ${response.statusCode} ${response.statusMessage}\r\n\r\n`.length;
  for (let i = 0; i < response.rawHeaders.length; i += 2)
    bytes += response.rawHeaders[i]!.length + 2 + response.rawHeaders[i + 1]!.length + 2;
  return bytes;
};

function post(origin: URL, agent: Agent, body: string, gzip: boolean): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const sent = request(
      {
        host: origin.hostname,
        port: origin.port,
        path: RSVP_PATH,
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          accept: 'application/json',
          ...(gzip ? { 'accept-encoding': 'gzip' } : {}),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const raw = Buffer.concat(chunks);
          const text = response.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
          resolve({
            status: response.statusCode ?? 0,
            bytes: headerBytes(response) + raw.length,
            body: text.toString('utf8'),
          });
        });
      },
    );
    // A server that stops answering fails the request (lost), not the whole bench by hanging.
    sent.setTimeout(30_000, () => sent.destroy(new Error('no answer within 30 s')));
    sent.on('error', reject);
    sent.end(body);
  });
}

/** `429 rate_limited`: a refusal's status and its JSON code, when it has one. */
function refusal(answer: Answer): string {
  try {
    const { code } = JSON.parse(answer.body) as { code?: unknown };
    return typeof code === 'string' ? `${answer.status} ${code}` : String(answer.status);
  } catch {
    return String(answer.status);
  }
}

const isConfirmation = (answer: Answer) => {
  if (answer.status < 200 || answer.status > 299) return false;
  try {
    return (JSON.parse(answer.body) as { attendee_status?: unknown }).attendee_status === 'going';
  } catch {
    return false;
  }
};

/** Nearest-rank percentile of sorted latencies (ms). */
const percentile = (sorted: readonly number[], p: number) =>
  sorted.length ? sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]! : Number.NaN;

export interface RsvpOptions {
  url: string;
  type: RsvpType;
  /** The servers the clients are spread over (each on the same database). */
  servers: readonly RsvpServer[];
  connections: number;
  duration: number;
  warmup: number;
  gzip: boolean;
}

export async function runRsvp(options: RsvpOptions): Promise<RsvpResult> {
  const { type, servers, connections, gzip } = options;
  if (connections < 1) throw new Error('the RSVP row needs at least one connection');
  const targets = servers.map((server) => ({
    origin: new URL(server.origin),
    agent: new Agent({ keepAlive: true, maxSockets: connections }),
  }));
  let sequence = 0;
  // Each reservation a new person: the per-e-mail limit, when on, could not be what refuses it.
  const nextBody = () => {
    const n = ++sequence;
    return JSON.stringify({
      ticket_id: type.typeId,
      full_name: `Bench guest ${n}`,
      email: `bench-guest-${n}@example.org`,
      quantity: 1,
    });
  };

  const phase = async (seconds: number): Promise<Phase> => {
    const result: Phase = {
      seconds: 0,
      latencies: [],
      confirmed: 0,
      bytes: 0,
      refusals: new Map(),
      lost: 0,
      lostReasons: new Set(),
    };
    const started = performance.now();
    const stopAt = started + seconds * 1000;
    const client = async (i: number) => {
      const { origin, agent } = targets[i % targets.length]!;
      while (performance.now() < stopAt) {
        const sent = performance.now();
        try {
          const answer = await post(origin, agent, nextBody(), gzip);
          result.latencies.push(performance.now() - sent);
          result.bytes += answer.bytes;
          if (isConfirmation(answer)) result.confirmed++;
          else {
            const why =
              answer.status >= 200 && answer.status <= 299 ? `${answer.status} not going` : refusal(answer);
            result.refusals.set(why, (result.refusals.get(why) ?? 0) + 1);
          }
        } catch (error) {
          result.lost++;
          result.lostReasons.add((error as Error).message);
        }
      }
    };
    // Every request started is awaited: the check counts all of them.
    await Promise.all(Array.from({ length: connections }, (_, i) => client(i)));
    result.seconds = (performance.now() - started) / 1000;
    return result;
  };

  try {
    const warm = options.warmup > 0 ? await phase(options.warmup) : undefined;
    for (const server of servers) await server.resetSql();
    const cpuBefore = await Promise.all(servers.map((server) => server.cpuMicros()));
    const measured = await phase(options.duration);
    const cpuAfter = await Promise.all(servers.map((server) => server.cpuMicros()));
    const statements = (await Promise.all(servers.map((server) => server.sql()))).reduce((a, b) => a + b, 0);
    const cpu = cpuAfter.reduce((sum, after, i) => sum + after - cpuBefore[i]!, 0);
    const phases = warm ? [warm, measured] : [measured];
    const check = await checkPlaces(options.url, type, phases);
    const refused = [...measured.refusals.values()].reduce((a, b) => a + b, 0);
    const answers = measured.latencies.length;
    const sorted = measured.latencies.sort((a, b) => a - b);
    return {
      requests: answers,
      rps: measured.confirmed / measured.seconds,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      non2xx: refused,
      errors: measured.lost,
      bytes: measured.bytes,
      cpuPerRequest: answers ? cpu / 1000 / answers : Number.NaN,
      sqlPerRequest: answers ? statements / answers : Number.NaN,
      check,
    };
  } finally {
    for (const { agent } of targets) agent.destroy();
  }
}

/**
 * After the run, from the database: the attendees going on the type equal the confirmations
 * answered (up to the requests whose answer was lost), the places held stay within the capacity, and
 * nothing was refused (the type never sells out and the limits are off). Throws otherwise.
 */
async function checkPlaces(url: string, type: RsvpType, phases: readonly Phase[]) {
  const confirmed = phases.reduce((sum, phase) => sum + phase.confirmed, 0);
  const lost = phases.reduce((sum, phase) => sum + phase.lost, 0);
  const refusals = new Map<string, number>();
  for (const phase of phases)
    for (const [why, count] of phase.refusals) refusals.set(why, (refusals.get(why) ?? 0) + count);
  const db = await createDb(url);
  let going: number;
  let held: number;
  try {
    const places = await db.attendee.aggregate({
      where: { ticketTypeId: type.typeId, status: 'GOING' },
      _count: { _all: true },
      _sum: { guests: true },
    });
    going = places._count._all;
    held = places._sum.guests ?? 0;
  } finally {
    await db.$disconnect();
  }
  const problems: string[] = [];
  if (going < confirmed || going > confirmed + lost)
    problems.push(
      `${going} attendees going, but ${confirmed} confirmations answered` +
        (lost ? ` and ${lost} requests without an answer` : ''),
    );
  if (held > type.capacity) problems.push(`${held} places held, over the capacity of ${type.capacity}`);
  if (refusals.size) {
    const list = [...refusals].map(([why, count]) => `${why} ×${count}`).join(', ');
    const limits = Object.keys(RSVP_LIMITS_OFF).join(', ');
    problems.push(
      `answers other than a confirmation on a type that cannot sell out: ${list}` +
        (refusals.has('429') || [...refusals.keys()].some((why) => why.startsWith('429 '))
          ? ` (rate limits on? the bench sets ${limits} to 0 for its servers)`
          : ''),
    );
  }
  if (confirmed === 0) problems.push('no reservation was confirmed');
  if (problems.length) {
    const reasons = [...new Set(phases.flatMap((phase) => [...phase.lostReasons]))];
    throw new Error(
      `RSVP check failed (ticket type ${type.typeId} of event ${type.eventId}): ${problems.join('; ')}` +
        (reasons.length ? `; lost answers: ${reasons.join(', ')}` : ''),
    );
  }
  return { going, held, confirmed, lost, capacity: type.capacity };
}
