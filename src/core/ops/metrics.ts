import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The service's Prometheus registry. One per app (tests build several apps in one process), so every
 * metric hangs off an instance rather than prom-client's global registry.
 */
export class Metrics {
  readonly registry = new Registry();

  readonly httpRequests = new Counter({
    name: 'calendar_http_requests_total',
    help: 'HTTP requests by route template (never the raw path), method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  });

  readonly httpDuration = new Histogram({
    name: 'calendar_http_request_duration_seconds',
    help: 'HTTP request latency by route template and method.',
    labelNames: ['route', 'method'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  readonly dbOperations = new Histogram({
    name: 'calendar_db_operation_duration_seconds',
    help: 'Database operations (one or more SQL statements each) by model and operation.',
    labelNames: ['model', 'operation'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [this.registry],
  });

  readonly sqlStatements = new Counter({
    name: 'calendar_sql_statements_total',
    help: 'SQL statements sent to the database.',
    registers: [this.registry],
  });

  /**
   * Response cache outcomes: `hit`, `miss`, `eviction`, `invalidation` (a write's effect applied),
   * `dropped` (an entry it made stale), `shared` (a miss answered by another request's computation).
   */
  readonly cacheEvents = new Counter({
    name: 'calendar_response_cache_events_total',
    help: 'Response cache hits, misses, evictions, invalidations, entries dropped and shared computations.',
    labelNames: ['event'] as const,
    registers: [this.registry],
  });

  /** The cache's size, read at scrape time. */
  readonly observeCacheSize = this.scraped(
    'calendar_response_cache_bytes',
    'Bytes held by the response cache.',
  );

  /** Event rows a read took from the kept records (`kept`) or from the database (`read`). */
  readonly recordReads = new Counter({
    name: 'calendar_record_cache_reads_total',
    help: 'Event rows read from the kept records or from the database.',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  /** The kept records' size, read at scrape time. */
  readonly observeRecordBytes = this.scraped(
    'calendar_record_cache_bytes',
    'Bytes held by the kept event rows.',
  );

  /** The open subscriptions, counted at scrape time. */
  readonly observeSubscriptions = this.scraped(
    'calendar_subscriptions_open',
    'GraphQL subscriptions (SSE streams) open on this instance.',
  );

  constructor() {
    // Process CPU, memory, handles, GC and event-loop lag (nodejs_eventloop_lag_*).
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 20 });
  }

  /** A gauge whose value is read at scrape time, from the function given to the setter it returns. */
  private scraped(name: string, help: string): (read: () => number) => void {
    let value = () => 0;
    new Gauge({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.set(value());
      },
    });
    return (read) => {
      value = read;
    };
  }

  /** Pool gauges read at scrape time, so they cost nothing between scrapes. */
  observePool(pool: { totalCount: number; idleCount: number; waitingCount: number }): void {
    new Gauge({
      name: 'calendar_db_pool_connections',
      help: 'PostgreSQL pool connections by state (in use, idle, waiting clients).',
      labelNames: ['state'] as const,
      registers: [this.registry],
      collect() {
        this.set({ state: 'in_use' }, pool.totalCount - pool.idleCount);
        this.set({ state: 'idle' }, pool.idleCount);
        this.set({ state: 'waiting' }, pool.waitingCount);
      },
    });
  }
}
