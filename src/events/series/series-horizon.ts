import type { Logger } from '../../core/ops/logger.js';
import { ANONYMOUS } from '../../core/rules/permissions.js';
import type { Scope } from '../../core/context/scope.js';
import type { Tx } from '../../core/db/transactions.js';
import type { Prisma } from '../../generated/sqlite/client.js';
import { syncSeries } from './event-series.js';

// The moving horizon (docs/reference/recurrence.md): a series is materialised up to now + the horizon
// setting when written, and this job brings every running series up to the moving horizon as time
// passes. Every instance may run it: each series is extended in one write under its first event's row
// lock, re-reading its occurrences once it holds it, so a slot another instance just created is seen
// and never created twice (the unique (series, slot) key would refuse it anyway). Each new occurrence
// gets its own copies of the records other rooms keep per event (ticket types) in the same write.

/** The first events of every series still running (trashed ones are not extended). */
async function seriesToExtend(tx: Tx | Prisma.TransactionClient): Promise<number[]> {
  return (
    await tx.event.findMany({
      where: { recurrence: { not: null }, originalStart: null, status: { not: 'trash' } },
      select: { id: true },
    })
  ).map((row) => row.id);
}

/** Extends every running series to now + horizon; returns the occurrences this call created. */
export async function extendSeries(
  scope: Pick<Scope, 'db' | 'config' | 'writes'>,
  now = new Date(),
  onError: (error: unknown, firstId: number) => void = () => {},
): Promise<number> {
  const request = { ...scope, viewer: ANONYMOUS };
  let created = 0;
  for (const id of await seriesToExtend(scope.db)) {
    try {
      created += await scope.writes.run(request, async (w) => {
        await w.lockRows('Event', [id]);
        const first = await w.tx.event.findUnique({
          where: { id },
          select: { recurrence: true, originalStart: true, status: true },
        });
        if (!first?.recurrence || first.originalStart !== null || first.status === 'trash') return 0;
        return (await syncSeries(w, id, { mode: 'extend', now, settings: scope.config.series })).length;
      });
    } catch (error) {
      // A series refused as its horizon moves (past the cap) stays as it is; the others go on.
      onError(error, id);
    }
  }
  return created;
}

/** Runs `extendSeries` every `config.series.extendEveryMs` (0: never) until stopped. */
export class SeriesHorizonJob {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly scope: Pick<Scope, 'db' | 'config' | 'writes'>,
    private readonly logger: Logger,
  ) {}

  start(): void {
    const every = this.scope.config.series.extendEveryMs;
    if (!every || this.timer) return;
    this.timer = setInterval(() => {
      this.running = this.running.then(() => this.runOnce());
    }, every);
    this.timer.unref();
  }

  async runOnce(): Promise<void> {
    try {
      const created = await extendSeries(this.scope, new Date(), (error, firstId) =>
        this.logger.warn({ err: error, event: firstId }, 'series not extended'),
      );
      if (created) this.logger.info({ created }, 'series extended to the horizon');
    } catch (error) {
      this.logger.error({ err: error }, 'series extension failed');
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
