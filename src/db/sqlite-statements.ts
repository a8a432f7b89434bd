import type Database from 'better-sqlite3';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { LRUCache } from 'lru-cache';

// Prisma's better-sqlite3 adapter prepares every statement it runs afresh: compiling SQL it has run
// a thousand times was ~5 % of an uncached list's CPU. This keeps the connection's statements by
// their text (Prisma's SQL carries its values as parameters, so the texts are few) and hands the
// adapter a view that binds each call's values without touching the shared statement.

/** How many statement texts are kept; an `IN (?, …)` of each length is one text. */
const MAX_STATEMENTS = 500;

type Values = unknown[];

/**
 * A compiled statement and its result columns, read once: better-sqlite3 builds them anew on each
 * call (~2 % of a list), and they change only with the schema, which migrations change before the
 * service starts. Prisma and the services name every column they select.
 */
class KeptStatement {
  private columnList?: Database.ColumnDefinition[];

  constructor(readonly statement: Database.Statement) {}

  columns(): Database.ColumnDefinition[] {
    return (this.columnList ??= this.statement.columns());
  }
}

/** What the adapter asks of a prepared statement, with the values bound per call. */
class BoundStatement {
  constructor(
    private readonly kept: KeptStatement,
    private readonly values: Values = [],
  ) {}

  get reader(): boolean {
    return this.kept.statement.reader;
  }

  bind(values: Values): BoundStatement {
    return new BoundStatement(this.kept, values);
  }

  run(): Database.RunResult {
    return this.kept.statement.run(this.values);
  }

  columns(): Database.ColumnDefinition[] {
    return this.kept.columns();
  }

  raw(): { all: () => unknown[] } {
    return { all: () => this.kept.statement.raw(true).all(this.values) as unknown[] };
  }
}

/** The connection, with `prepare` answering from the kept statements. */
export function reusingStatements(connection: Database.Database, max = MAX_STATEMENTS): Database.Database {
  const statements = new LRUCache<string, KeptStatement>({ max });
  const prepare = (sql: string) => {
    let kept = statements.get(sql);
    if (!kept) {
      kept = new KeptStatement(connection.prepare(sql));
      statements.set(sql, kept);
    }
    return new BoundStatement(kept);
  };
  return new Proxy(connection, {
    get(target, key) {
      if (key === 'prepare') return prepare;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/**
 * Prisma's better-sqlite3 adapter factory whose connections reuse their statements. The adapter keeps
 * its connection in `client`; if a new version of the adapter stops doing so this fails at connect
 * (and so in every test) instead of silently preparing everything again.
 */
export class StatementReusingSqlite extends PrismaBetterSqlite3 {
  override async connect(): ReturnType<PrismaBetterSqlite3['connect']> {
    const adapter = await super.connect();
    const holder = adapter as unknown as { client?: Database.Database };
    if (typeof holder.client?.prepare !== 'function')
      throw new Error('@prisma/adapter-better-sqlite3 no longer keeps its connection in `client`');
    holder.client = reusingStatements(holder.client);
    return adapter;
  }
}
