import { randomBytes, randomUUID } from 'node:crypto';
import type { Db } from './client.js';
import type { Logger } from '../ops/logger.js';

// What makes processes one calendar is the database they share, not how they were configured: the
// database's identity row (made once, by the first process to start on it) names the calendar's bus
// channels and Redis keys. So two instances whose CALENDAR_SITE_URL differs (or is missing: each then
// defaults to its own port), or whose connection strings spell the host or the SQLite file's path
// differently, still hear each other's writes; their site URLs change their links, never their
// freshness. A site URL that differs is worth a warning all the same, so each running instance records
// its own in the database, with the last time it was seen.

const IDENTITY_ID = 1;

/** How often a running instance says it is still there. */
const HEARTBEAT_MS = 60_000;

/**
 * An instance not seen for this long (three heartbeats) is gone: it crashed, or lost the database. One
 * constant for every instance, as each judges the others' records by it.
 */
const GONE_AFTER_MS = 3 * HEARTBEAT_MS;

/**
 * The calendar's namespace (`calendar-` and twelve hex digits): read from the database, or made there
 * by the first process to ask. Instances, the `calendar` CLI and the seed script all name their bus
 * channels and Redis keys within it.
 */
export async function calendarNamespace(db: Db): Promise<string> {
  const read = async () => (await db.calendarIdentity.findUnique({ where: { id: IDENTITY_ID } }))?.namespace;
  const found = await read();
  if (found) return found;
  try {
    const namespace = `calendar-${randomBytes(6).toString('hex')}`;
    await db.calendarIdentity.create({ data: { id: IDENTITY_ID, namespace } });
    return namespace;
  } catch (error) {
    // Another process starting at the same moment made it first: theirs is the one.
    const made = await read();
    if (made) return made;
    throw error;
  }
}

/** This instance as one of the calendar's running instances. */
interface CalendarMembership {
  /** The calendar's namespace (`calendarNamespace`). */
  namespace: string;
  /** Stops the heartbeat and removes this instance's record (at shutdown). */
  leave(): Promise<void>;
}

interface JoinOptions {
  /** How often the record is refreshed and the others' URLs looked at again (tests shorten it). */
  heartbeatMs?: number;
}

/**
 * Joins the calendar stored in `db` as a running instance serving under `siteUrl`: reads (or makes)
 * its namespace, records this instance, and warns, naming both URLs, when another running instance of
 * the same database serves under another site URL — at once, and whenever one appears later. Records
 * not refreshed for three minutes are gone: a crashed instance's URL stops counting, and is deleted.
 */
export async function joinCalendar(
  db: Db,
  siteUrl: string,
  logger: Logger,
  { heartbeatMs = HEARTBEAT_MS }: JoinOptions = {},
): Promise<CalendarMembership> {
  const namespace = await calendarNamespace(db);
  const id = randomUUID();
  // The URLs already warned about and still running: each is named once while it runs.
  let warned = new Set<string>();

  const beat = async () => {
    const now = new Date();
    await db.runningInstance.upsert({
      where: { id },
      create: { id, siteUrl, seenAt: now },
      update: { seenAt: now },
    });
    const since = new Date(now.getTime() - GONE_AFTER_MS);
    await db.runningInstance.deleteMany({ where: { seenAt: { lt: since } } });
    const others = await db.runningInstance.findMany({
      where: { siteUrl: { not: siteUrl }, seenAt: { gte: since } },
    });
    const running = new Set<string>();
    for (const other of others) {
      running.add(other.siteUrl);
      if (warned.has(other.siteUrl)) continue;
      warned.add(other.siteUrl);
      logger.warn(
        { siteUrl, otherSiteUrl: other.siteUrl, otherSeenAt: other.seenAt.toISOString() },
        `instances of this database serve under different site URLs: ${siteUrl} here, ` +
          `${other.siteUrl} on another instance; their links differ (their caches stay in step): ` +
          'set the same CALENDAR_SITE_URL on every instance',
      );
    }
    warned = new Set([...warned].filter((url) => running.has(url)));
  };

  await beat();
  // A heartbeat still running when the instance leaves would write its record back; one slower than
  // the interval is not overtaken by the next (which could write it back after the leave).
  let beating: Promise<void> | undefined;
  const timer = setInterval(() => {
    beating ??= beat()
      .catch((error: unknown) => logger.debug({ err: error }, 'instance record not refreshed'))
      .finally(() => (beating = undefined));
  }, heartbeatMs);
  timer.unref();
  return {
    namespace,
    leave: async () => {
      clearInterval(timer);
      await beating;
      await db.runningInstance.deleteMany({ where: { id } });
    },
  };
}
