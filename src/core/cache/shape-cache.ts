import { LRUCache } from 'lru-cache';

// Kept representations of records (the REST shape of an event): each is a pure function of inputs
// the caller spells into its key — the versions of the rows it is made of, the verdicts the viewer
// gets on them, the site's addresses and settings — so an entry can never be stale, only unused:
// a write gives the record a new version and so a new key, and the old entry ages out of the LRU.
// Nothing here is invalidated; what is kept is bounded in bytes.

interface ShapeCacheOptions {
  /** The bound on what is kept, in bytes as `sizeOf` estimates them; 0 keeps nothing. */
  maxBytes: number;
}

/** A shape larger than this share of the bound is computed every time rather than evict many others. */
const LARGEST_SHARE = 16;

export class ShapeCache {
  private readonly shapes: LRUCache<string, object> | null;
  private hits = 0;
  private misses = 0;

  constructor(options: ShapeCacheOptions) {
    this.shapes =
      options.maxBytes > 0
        ? new LRUCache<string, object>({
            maxSize: options.maxBytes,
            maxEntrySize: Math.max(1, Math.floor(options.maxBytes / LARGEST_SHARE)),
            sizeCalculation: (shape, key) => sizeOf(shape) + key.length * 2,
          })
        : null;
  }

  /** The shape kept under `key`, or the one `compute` makes (then kept). Callers must not mutate it. */
  shaped<T extends object>(key: string, compute: () => T): T {
    if (!this.shapes) return compute();
    const kept = this.shapes.get(key) as T | undefined;
    if (kept !== undefined) {
      this.hits++;
      return kept;
    }
    this.misses++;
    const shape = compute();
    this.shapes.set(key, shape);
    return shape;
  }

  /** Bytes held, as counted against the bound. */
  get bytes(): number {
    return this.shapes?.calculatedSize ?? 0;
  }

  get size(): number {
    return this.shapes?.size ?? 0;
  }

  get stats(): { hits: number; misses: number } {
    return { hits: this.hits, misses: this.misses };
  }
}

/**
 * What a plain JSON-like value holds in V8, roughly: two bytes per string character, eight per number
 * or reference, and a fixed overhead per object and array. An estimate, not an exact count, but it
 * grows with what the shape holds, which is what the bound is for.
 */
export function sizeOf(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return 16 + value.length * 2;
    case 'number':
    case 'boolean':
    case 'undefined':
      return 8;
    case 'object': {
      if (value === null) return 8;
      if (Array.isArray(value)) {
        let bytes = 32;
        for (const item of value) bytes += 8 + sizeOf(item);
        return bytes;
      }
      let bytes = 48;
      for (const key in value) bytes += 8 + key.length + sizeOf((value as Record<string, unknown>)[key]);
      return bytes;
    }
    default:
      return 8;
  }
}
