import { relative } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { databaseProviderOf } from '../../../src/core/config/config.js';
import { type Db, createDb, sqliteFilePath } from '../../../src/core/db/client.js';
import { migrateDatabase } from '../../../src/core/db/migrate.js';
import { calendarNamespace, joinCalendar } from '../../../src/core/db/calendar-identity.js';
import { freshDatabase } from '../../helpers/database.js';
import { type LogLine, capturingLogger } from '../../helpers/logs.js';

// The database names the calendar (src/core/db/calendar-identity.ts): every process on it finds the same
// namespace, however its connection string is spelt, and running instances record their site URLs so
// that one serving under another URL is named in a warning, while a long-gone instance's record is not.

let database: { url: string; drop: () => Promise<void> };
let db: Db;
const clients: Db[] = [];

beforeAll(async () => {
  database = await freshDatabase();
  await migrateDatabase(database.url);
  db = await client(database.url);
});

afterAll(async () => {
  for (const each of clients) await each.$disconnect();
  await database?.drop();
});

beforeEach(async () => {
  await db.runningInstance.deleteMany();
});

async function client(url: string): Promise<Db> {
  const made = await createDb(url);
  clients.push(made);
  return made;
}

/** The same database under another spelling: a relative SQLite path, or `localhost` for 127.0.0.1. */
function respelt(url: string): string {
  if (databaseProviderOf(url) === 'sqlite') return `file:${relative(process.cwd(), sqliteFilePath(url))}`;
  const other = new URL(url);
  other.hostname = other.hostname === 'localhost' ? '127.0.0.1' : 'localhost';
  return other.toString();
}

const warnings = (lines: LogLine[]) => lines.filter((line) => line.level === 40);

describe('the calendar’s namespace', () => {
  it('is made once, by whichever of several processes starting together comes first', async () => {
    const fresh = await freshDatabase();
    try {
      await migrateDatabase(fresh.url);
      const starting = await Promise.all([1, 2, 3, 4].map(() => client(fresh.url)));
      const found = await Promise.all(starting.map((each) => calendarNamespace(each)));
      expect(found[0]).toMatch(/^calendar-[0-9a-f]{12}$/);
      expect(new Set(found)).toEqual(new Set([found[0]]));
      expect(await starting[0]!.calendarIdentity.count()).toBe(1);
      // Another database is another calendar.
      expect(found[0]).not.toBe(await calendarNamespace(db));
    } finally {
      for (const each of clients.splice(-4)) await each.$disconnect();
      await fresh.drop();
    }
  });

  it('is the same through a connection string spelt otherwise', async () => {
    const url = respelt(database.url);
    expect(url).not.toBe(database.url);
    expect(await calendarNamespace(await client(url))).toBe(await calendarNamespace(db));
  });
});

describe('site URLs of the running instances', () => {
  it('a second instance under another URL warns, naming both; one under the same URL does not', async () => {
    const first = capturingLogger('warn');
    const a = await joinCalendar(db, 'https://calendar.example', first.logger);
    const same = capturingLogger('warn');
    const b = await joinCalendar(await client(database.url), 'https://calendar.example', same.logger);
    const other = capturingLogger('warn');
    const c = await joinCalendar(await client(database.url), 'http://localhost:4000', other.logger);
    try {
      expect(new Set([a.namespace, b.namespace, c.namespace]).size).toBe(1);
      expect(warnings(same.lines)).toEqual([]);
      expect(warnings(other.lines)).toHaveLength(1);
      expect(warnings(other.lines)[0]).toMatchObject({
        siteUrl: 'http://localhost:4000',
        otherSiteUrl: 'https://calendar.example',
      });
      expect(warnings(other.lines)[0]!.msg).toContain(
        'http://localhost:4000 here, https://calendar.example on another instance',
      );
    } finally {
      await Promise.all([a.leave(), b.leave(), c.leave()]);
    }
  });

  it('an instance already running warns at its next heartbeat, once however many follow', async () => {
    const first = capturingLogger('warn');
    const a = await joinCalendar(db, 'https://calendar.example', first.logger, { heartbeatMs: 20 });
    const b = await joinCalendar(db, 'https://www.calendar.example', capturingLogger('warn').logger);
    try {
      await new Promise((done) => setTimeout(done, 150));
      expect(warnings(first.lines)).toHaveLength(1);
      expect(warnings(first.lines)[0]).toMatchObject({
        siteUrl: 'https://calendar.example',
        otherSiteUrl: 'https://www.calendar.example',
      });
    } finally {
      await Promise.all([a.leave(), b.leave()]);
    }
  });

  it('a record not refreshed for three minutes is gone: not named, and deleted; a younger one counts', async () => {
    const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000);
    await db.runningInstance.createMany({
      data: [
        { id: 'crashed', siteUrl: 'http://old-host:4000', startedAt: ago(60), seenAt: ago(10) },
        { id: 'between-beats', siteUrl: 'http://other-host:4000', startedAt: ago(60), seenAt: ago(2) },
      ],
    });
    const log = capturingLogger('warn');
    const a = await joinCalendar(db, 'https://calendar.example', log.logger);
    try {
      expect(warnings(log.lines).map((line) => line.otherSiteUrl)).toEqual(['http://other-host:4000']);
      const left = await db.runningInstance.findMany({ where: { id: { in: ['crashed', 'between-beats'] } } });
      expect(left.map((row) => row.id)).toEqual(['between-beats']);
    } finally {
      await a.leave();
    }
  });

  it('an instance that left takes its record with it', async () => {
    const a = await joinCalendar(db, 'https://calendar.example', capturingLogger('warn').logger, {
      heartbeatMs: 10,
    });
    await new Promise((done) => setTimeout(done, 30));
    await a.leave();
    expect(await db.runningInstance.count()).toBe(0);
    const log = capturingLogger('warn');
    const b = await joinCalendar(db, 'https://new.calendar.example', log.logger);
    try {
      expect(warnings(log.lines)).toEqual([]);
    } finally {
      await b.leave();
    }
  });
});
