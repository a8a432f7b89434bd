import { EVERYTHING, type WriteEffect, withoutTexts } from './dependencies.js';
import type { Logger } from '../ops/logger.js';
import { type BusSettings, type InstanceBus, announce, busAddressOf } from '../ops/instance-bus.js';
import type { ResponseCache } from './response-cache.js';

// Cache invalidations between instances: each committed write's effect drops what it changed from this
// instance's cache (the write pipeline's afterCommit) and is published on the instance bus; every other
// instance drops the same from its own. A message too large for the bus (PostgreSQL's NOTIFY takes
// 8,000 bytes) goes as "everything", as does one from a process that cannot say (the CLI).
// While the bus cannot hear the channel an instance would miss other writes, so it stops sharing
// answers (reads stay correct, only uncached) and starts again from an empty cache once it hears.

const CHANNEL = 'calendar_cache_invalidation';

/** Shares this cache's invalidations with the other instances on `bus`, and applies theirs. */
export function shareInvalidations(cache: ResponseCache, bus: InstanceBus): void {
  cache.suspend();
  bus.listen(CHANNEL, {
    message: (payload) => cache.invalidate(effectOf(payload), 'remote'),
    heard: () => cache.resume(),
    lost: () => cache.suspend(),
  });
  // The events' texts stay here: other instances judge their searches as if any text changed.
  cache.onInvalidate((written) => {
    const effect = withoutTexts(written);
    bus.publish(CHANNEL, JSON.stringify(effect).length > MAX_MESSAGE ? EVERYTHING : effect);
  });
}

/** Room left for the bus's own envelope within NOTIFY's 8,000 bytes. */
const MAX_MESSAGE = 6000;

/** A published effect as received; anything else (null from the CLI, a malformed one) is everything. */
function effectOf(payload: unknown): WriteEffect {
  if (typeof payload !== 'object' || payload === null) return EVERYTHING;
  const { all, records, kinds, events } = payload as Partial<WriteEffect>;
  if (all || !Array.isArray(records) || !Array.isArray(kinds)) return EVERYTHING;
  if (events !== 'unknown' && !Array.isArray(events)) return EVERYTHING;
  return { records, kinds, events };
}

/**
 * Tells every running instance that data changed behind their backs (the `calendar` CLI, the seed
 * script: other processes, whose writes no server's write pipeline saw). Resolves `false` where no
 * channel exists (SQLite without Redis: restart the server) or it cannot be reached (logged); the
 * write itself is committed either way.
 */
export async function announceInvalidation(settings: BusSettings, logger: Logger): Promise<boolean> {
  try {
    return await announce(busAddressOf(settings), CHANNEL, null, logger);
  } catch (error) {
    logger.warn({ err: error }, 'running instances not told of the change; their caches may be stale');
    return false;
  }
}
