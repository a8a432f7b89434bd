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

  /** A read: it returns rows and writes nothing (`BEGIN` and `COMMIT` are read-only and return none). */
  get readsOnly(): boolean {
    return this.kept.statement.reader && this.kept.statement.readonly;
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

type Adapter = Awaited<ReturnType<PrismaBetterSqlite3['connect']>>;
type Query = Parameters<Adapter['queryRaw']>[0];

/** Statements after which a connection's planner statistics are new: the reader must load them. */
const GATHERS_STATISTICS = /^\s*(ANALYZE|PRAGMA\s+optimize)\b/i;

/** The reads of an adapter on a connection of their own (`readingCommitted`). */
interface CommittedReads {
  /** The writer gathered statistics: the reader is opened again to plan with them. */
  statisticsGathered(): void;
  close(): void;
}

/**
 * Sends the reads an adapter runs outside a transaction to a second connection to its database
 * (`open` makes one), so that they see committed data only. On the one connection, a read made while
 * a write's transaction is open there (between two of its statements, each awaited) sees what the
 * write wrote before it commits: an answer built from a write that then rolls back would be served,
 * and kept by the response cache, which no rolled-back write invalidates. In WAL mode each statement
 * of the reader reads the last committed state. Writes, and everything inside a transaction, keep the
 * adapter's own connection (SQLite has one writer).
 *
 * A connection loads the planner's statistics with the schema and not again when another connection
 * gathers them (ANALYZE changes no schema): after the writer gathers them, the reader is opened anew.
 */
export function readingCommitted(adapter: Adapter, open: () => Database.Database): CommittedReads {
  const holder = adapter as unknown as {
    client: Database.Database;
    performIO(query: Query): Promise<unknown>;
    executeIO(query: Query): Promise<unknown>;
  };
  const writer = holder.client;
  let connection = open();
  let reader = reusingStatements(connection);
  const statisticsGathered = () => {
    const old = connection;
    connection = open();
    reader = reusingStatements(connection);
    old.close();
  };
  // A write outside a transaction waits for the open one (the adapter runs one at a time) to end: on
  // the writer's connection it would join that transaction, be invisible to the reads until it
  // commits, and be lost if it rolls back.
  let transaction: Promise<void> | null = null;
  const startTransaction = adapter.startTransaction.bind(adapter);
  adapter.startTransaction = async (isolationLevel) => {
    const opened = await startTransaction(isolationLevel);
    let ended!: () => void;
    const current = new Promise<void>((resolve) => (ended = resolve));
    transaction = current;
    const ending =
      <T>(end: () => Promise<T>) =>
      async () => {
        try {
          return await end();
        } finally {
          if (transaction === current) transaction = null;
          ended();
        }
      };
    opened.commit = ending(opened.commit.bind(opened));
    opened.rollback = ending(opened.rollback.bind(opened));
    return opened;
  };
  const outsideTransactions = async () => {
    while (transaction) await transaction;
  };
  const performIO = holder.performIO.bind(adapter);
  const executeIO = holder.executeIO.bind(adapter);
  /** Whether the reader runs `sql`: not when it does not compile (the adapter's own error is thrown). */
  const read = (sql: string) => {
    try {
      return (reader.prepare(sql) as unknown as BoundStatement).readsOnly;
    } catch {
      return false;
    }
  };
  const written = <T>(query: Query, result: Promise<T>) => {
    if (GATHERS_STATISTICS.test(query.sql)) statisticsGathered();
    return result;
  };
  holder.performIO = async (query) => {
    // The adapter's own read, run with the reader as its connection: it is synchronous up to the
    // promise it returns, so the connection is swapped for exactly that statement.
    if (read(query.sql)) {
      holder.client = reader;
      let result: Promise<unknown>;
      try {
        result = performIO(query);
      } finally {
        holder.client = writer;
      }
      return result;
    }
    await outsideTransactions();
    return written(query, performIO(query));
  };
  holder.executeIO = async (query) => {
    await outsideTransactions();
    return written(query, executeIO(query));
  };
  return { statisticsGathered, close: () => connection.close() };
}
