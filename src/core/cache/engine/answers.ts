import { LRUCache } from 'lru-cache';
import { type Dependencies, type WriteEffect, recordTag } from '../dependencies.js';
import { gunzipped, gzipped, gzippedAside } from '../content-coding.js';
import { type CountRuns, answerHash, countedHash } from '../answer-hash.js';
import { isLent, lendUntil } from '../lent-bodies.js';
import { DependencyIndex } from '../dependency-index.js';
import { heldBytes, ownBytes } from '../held-bytes.js';
import { mechanismOn } from '../../config/cache-mechanisms.js';
import {
  type CacheEvent,
  type Entry,
  type Representation,
  type RowRewrite,
  SLOT_BYTES,
  entryBytes,
  etagOf,
  isStale,
  storeIndexed,
} from './entries.js';
import type { WriteMarks } from './write-marks.js';

// The stored answers of the response cache within their part of the byte bound: the entries by key,
// the plain copies of coded bodies, the refreshes in place of stale entries and the coding again of
// refreshed bodies (`ResponseCache` answers from them, and decides what is stored).

/** The current counts of these terms, read to refresh an answer that shows them. */
export type ReadTermCounts = (terms: readonly number[]) => Promise<ReadonlyMap<number, number>>;

/** Term counts known at most (a number each): past it, they are forgotten and read again. */
const MAX_KNOWN_COUNTS = 10_000;

/** Row reads shared between two writes at most (`renderedRows`): past it, they are forgotten. */
const MAX_SHARED_ROW_READS = 1_000;

/** Refreshed bodies being coded again on the thread pool at once; the others wait their turn. */
const MAX_RECODING = 8;
/**
 * How long a refreshed body stays plain before it is coded again: while counts move every few seconds,
 * most are refreshed again first (from the plain bytes: no inflating, no coding in between). Measured:
 * 0.5 s spent a fifth more CPU per read at 10 writes a second; never coding again filled the bound
 * with plain bodies (evictions, then misses). A body that does not fit plain is coded at once.
 */
const RECODE_DELAY_MS = 5_000;

/** What the stored answers read of the cache's options (`ResponseCacheOptions`). */
interface AnswersOptions {
  enabled: boolean;
  onEvent?: (event: CacheEvent) => void;
  recodeDelayMs?: number;
}

export class Answers {
  readonly entries: LRUCache<string, Entry> | null;
  /** The entries by what they depend on: a write judges only those it may meet. */
  private readonly entryIndex = new DependencyIndex();
  /**
   * Plain copies of coded bodies by entry serial, for the clients that do not accept gzip: the most
   * read are kept, so those clients' hits are not each an inflate. They share the answers' part of the
   * bound (`answerBytes`) and give way to them: the least read copies go when the answers need room.
   */
  private readonly plain: LRUCache<number, Buffer> | null;
  private serial = 0;
  /**
   * Rows read since the last write, by reader and events: the lists one write made stale show its
   * event's row alike, and each would otherwise read and shape it again. Forgotten at every write.
   */
  private readonly rowReads = new Map<string, Promise<readonly unknown[] | null>>();
  /**
   * Where refreshed counts come from (`ResponseCache.readCountsWith`); until given, an answer whose
   * counts move drops.
   */
  readTermCounts: ReadTermCounts | null = null;
  /**
   * Term counts read since the last write that moved them, so that the answers one write made stale
   * are refreshed with one read of its terms' counts, not one each. Forgotten under the same
   * invalidation as the answers.
   */
  private readonly knownCounts = new Map<number, number>();
  /** Refreshed bodies being coded again (`recode`). */
  private recoding = 0;
  /** Refreshed entries due to be coded again, in the order they became due. */
  private readonly recodeQueue: Array<{ key: string; entry: Entry }> = [];
  /** Refreshed entries whose bodies are still plain, by key, oldest first (`recode`, `makeRoom`). */
  private readonly plainEntries = new Map<string, Entry>();

  /**
   * `answerBytes`: the bound of the answers and their plain copies; `computing`: the answers being
   * computed or refreshed, by key (the cache's single flight), whose bodies `makeRoom` leaves alone;
   * `today`: the site-zone day, part of what a row read is shared by.
   */
  constructor(
    private readonly options: AnswersOptions,
    private readonly answerBytes: number,
    private readonly writes: WriteMarks,
    private readonly computing: ReadonlyMap<string, unknown>,
    private readonly today: () => string,
  ) {
    this.entries = options.enabled
      ? new LRUCache<string, Entry>({
          maxSize: this.answerBytes,
          sizeCalculation: entryBytes,
          // Evicted, deleted or cleared, an entry leaves the index too (a replacement: `storeIndexed`),
          // and its plain copy goes with it.
          dispose: (entry, key, reason) => {
            this.plain?.delete(entry.serial);
            if (reason !== 'set') this.entryIndex.remove(key, entry.dependencies);
            if (reason === 'evict') options.onEvent?.('eviction');
          },
        })
      : null;
    this.plain = options.enabled
      ? new LRUCache<number, Buffer>({
          maxSize: this.answerBytes,
          sizeCalculation: (body) => SLOT_BYTES + heldBytes(body),
        })
      : null;
  }

  /** Bytes held by the entries and their plain copies, as counted against the bound. */
  get bytes(): number {
    return (this.entries?.calculatedSize ?? 0) + (this.plain?.calculatedSize ?? 0);
  }

  /** The serial of the next entry stored. */
  nextSerial(): number {
    return ++this.serial;
  }

  /**
   * Drops the entries a write with `effect` meets (not one wholesale: `clear`), or marks them stale
   * when it changed only what they can rewrite (a list's total, its rows). Row reads are forgotten.
   */
  invalidate(effect: WriteEffect): void {
    this.forgetCounts(effect);
    this.rowReads.clear();
    if (effect.all || !this.entries) return;
    const { beyond, countsOnly, totalsOnly, rowsOnly } = this.entryIndex.judge(effect);
    for (const key of countsOnly) {
      const entry = this.entries.peek(key);
      if (entry && this.refreshable(entry)) entry.staleCounts = true;
      else beyond.add(key);
    }
    for (const key of totalsOnly) {
      const entry = this.entries.peek(key);
      if (entry?.rewriteTotal && mechanismOn('total-refresh')) entry.staleTotal = true;
      else beyond.add(key);
    }
    for (const [key, events] of rowsOnly) {
      const entry = this.entries.peek(key);
      if (entry?.rewriteRows && mechanismOn('row-refresh'))
        entry.staleRows = [...new Set([...(entry.staleRows ?? []), ...events])];
      else beyond.add(key);
    }
    for (const key of beyond) if (this.entries.delete(key)) this.options.onEvent?.('dropped');
  }

  clear(): void {
    this.knownCounts.clear();
    this.rowReads.clear();
    this.entries?.clear();
    this.plain?.clear();
    this.recodeQueue.length = 0;
    this.plainEntries.clear();
  }

  /** A computed answer stored under `key`, room made for it; `plain`: its plain bytes, when coded. */
  store(key: string, entry: Entry, plain: Buffer | null): void {
    if (!this.entries) return;
    const size = entryBytes(entry, key);
    this.makeRoom(key, size - this.heldFor(key));
    storeIndexed(this.entries, this.entryIndex, key, entry, size);
    if (plain) this.keepPlain(entry.serial, plain);
    this.trimPlain();
  }

  private refreshable(entry: Entry): boolean {
    return entry.rewriteCounts !== undefined && this.readTermCounts !== null && mechanismOn('count-refresh');
  }

  /** Forgets the known counts of the terms a write touched (all of them after a write that cannot say). */
  private forgetCounts(effect: WriteEffect): void {
    if (!this.knownCounts.size) return;
    if (effect.all) return this.knownCounts.clear();
    for (const tag of effect.records) {
      const [kind, id] = tag.split(':');
      if (kind === 'term-count' || kind === 'term') this.knownCounts.delete(Number(id));
    }
  }

  /** The current counts of `terms`: those known, and the others read (and known from then on). */
  private async currentCounts(terms: readonly number[]): Promise<Map<number, number>> {
    const counts = new Map<number, number>();
    const missing: number[] = [];
    for (const id of terms) {
      const known = this.knownCounts.get(id);
      if (known === undefined) missing.push(id);
      else counts.set(id, known);
    }
    if (!missing.length) return counts;
    const mark = this.writes.mark();
    const read = await this.readTermCounts!(missing);
    // Known only when no write moved them (or renamed or deleted the term) while they were read.
    const known = this.writes.current(mark, {
      records: missing.map((id) => recordTag('term', id)),
      kinds: [],
      windows: [],
      counts: missing,
    });
    if (known && this.knownCounts.size + missing.length > MAX_KNOWN_COUNTS) this.knownCounts.clear();
    for (const [id, count] of read) {
      counts.set(id, count);
      if (known) this.knownCounts.set(id, count);
    }
    return counts;
  }

  /**
   * `rewrite`'s rows of `events` fitted to an answer, read once for every answer of its reader since
   * the last write (a read begun before a write is forgotten with it, so none outlives what it read).
   */
  private async renderedRows(
    rewrite: RowRewrite,
    events: readonly number[],
    dependencies: Dependencies,
  ): Promise<((body: Buffer) => Buffer | null) | null> {
    const sorted = [...events].sort((a, b) => a - b);
    const key = `${rewrite.reader}\u0000${this.today()}\u0000${sorted.join(',')}`;
    let rows = this.rowReads.get(key);
    if (!rows) {
      if (this.rowReads.size >= MAX_SHARED_ROW_READS) this.rowReads.clear();
      rows = rewrite.read(sorted);
      this.rowReads.set(key, rows);
      // A failed read is not shared: the next answer reads again.
      rows.catch(() => {
        if (this.rowReads.get(key) === rows) this.rowReads.delete(key);
      });
    }
    return rewrite.fit(await rows, events, dependencies);
  }

  /**
   * A stale entry whose writes changed only its list's total or rows it shows: those read again and
   * rewritten into its body and headers (new validators), stored unless a write met it meanwhile.
   * Null (recompute it whole) when the entry went or changed during the read, a row cannot be rendered
   * in place, or the total changes more than its numbers (the page's links). `coded`: for a client that
   * accepts gzip.
   */
  async refreshed(key: string, entry: Entry, coded: boolean): Promise<Entry | null> {
    const mark = this.writes.mark();
    const [counts, total, rows] = await Promise.all([
      entry.staleCounts ? this.currentCounts(entry.dependencies.counts ?? []) : null,
      entry.staleTotal ? entry.rewriteTotal!.recount() : null,
      entry.staleRows ? this.renderedRows(entry.rewriteRows!, entry.staleRows, entry.dependencies) : null,
    ]);
    if (this.entries?.peek(key) !== entry || (entry.staleRows && !rows)) return null;
    // Stored at once unless a write met it meanwhile; then, unless a client or a deflate still reads
    // them, its plain bytes are the refreshed entry's (the old entry and its plain copy go).
    const storing = this.writes.current(mark, entry.dependencies);
    const source = this.plainBody(entry);
    // A new total or new rows are written into a new body anyway (and may refuse): in place only for
    // counts alone.
    const inPlace = storing && total === null && rows === null && !isLent(source);
    const rewritten = rewrite(entry, source, rows, counts, total, inPlace);
    if (rewritten === null || !this.entries) return null;
    this.options.onEvent?.('refreshed');
    const plain = ownBytes(rewritten.body);
    // Written in place, its masked bytes are those of the base kept: only the counts are hashed.
    const { hash, base } =
      plain === source && entry.hashBase && rewritten.countRuns
        ? { hash: countedHash(entry.hashBase, plain, rewritten.countRuns), base: entry.hashBase }
        : answerHash(plain, rewritten.countRuns ?? entry.rewriteCounts?.find(plain));
    const etag = etagOf(hash, entry.version);
    const refreshed: Entry = {
      ...entry,
      ...(base && { hashBase: base }),
      headers: { ...rewritten.headers, etag },
      body: plain,
      coded: false,
      serial: ++this.serial,
    };
    // Where the counts are now (rows rendered again moved them: found again at the next refresh).
    if (rewritten.countRuns) refreshed.countRuns = rewritten.countRuns;
    else delete refreshed.countRuns;
    delete refreshed.staleCounts;
    delete refreshed.staleTotal;
    delete refreshed.staleRows;
    // Coded before a client that accepts gzip is answered (the same bytes as a recomputed answer); for
    // any other, after its answer on the thread pool (`recode`). Counts move with every create, trash
    // and term change: coding every refresh on the event loop cost more than the refresh itself. But
    // coded at once when its plain bytes do not fit beside the other answers, even once the bodies
    // waiting to be coded are (`makeRoom`): an evicted answer is a miss later, milliseconds where
    // coding costs about a tenth of one.
    let size = !coded && storing ? entryBytes(refreshed, key) : undefined;
    if (coded || (size !== undefined && !this.makeRoom(key, size - this.heldFor(key)))) {
      const codedBody = gzipped(plain);
      if (codedBody) Object.assign(refreshed, { body: codedBody, coded: true });
      size = undefined;
    }
    if (storing) {
      storeIndexed(this.entries, this.entryIndex, key, refreshed, size);
      if (refreshed.coded) this.keepPlain(refreshed.serial, plain);
      else this.recode(key, refreshed);
      this.trimPlain();
    }
    return refreshed;
  }

  /**
   * After `RECODE_DELAY_MS`, codes a refreshed entry's plain body on the thread pool and puts the coded
   * entry in its place (the same serial: its aliases stay valid), unless it changed or went meanwhile.
   * At most `MAX_RECODING` at a time; the others wait their turn (one write refreshes dozens of
   * entries at once, and a body left plain would hold several times its coded size until evicted).
   */
  private recode(key: string, entry: Entry): void {
    this.plainEntries.delete(key);
    this.plainEntries.set(key, entry);
    setTimeout(() => {
      this.recodeQueue.push({ key, entry });
      this.recodeNext();
    }, this.options.recodeDelayMs ?? RECODE_DELAY_MS).unref();
  }

  private recodeNext(): void {
    while (this.recoding < MAX_RECODING && this.recodeQueue.length > 0) {
      const { key, entry } = this.recodeQueue.shift()!;
      if (this.plainEntries.get(key) === entry) this.plainEntries.delete(key);
      const current = () => this.entries?.peek(key) === entry;
      if (!current()) continue;
      this.recoding++;
      lendUntil(entry.body, gzippedAside(entry.body))
        .then((coded) => {
          if (coded && current()) this.storeCoded(key, entry, coded);
        })
        // A body that cannot be coded stays plain.
        .catch(() => undefined)
        .finally(() => {
          this.recoding--;
          this.recodeNext();
        });
    }
  }

  /**
   * Whether `growth` more bytes of the answer stored under `storing` fit in their bound, after coding at
   * once as many of the bodies waiting to be coded as that takes, oldest first: a plain body gives way
   * before an answer is evicted for it. Not the answer being stored, nor one being refreshed or
   * recomputed (its body is about to be replaced), nor a stale one (the same).
   */
  private makeRoom(storing: string, growth: number): boolean {
    if (!this.entries) return false;
    const fits = () => this.entries!.calculatedSize + growth <= this.answerBytes;
    for (const [key, entry] of this.plainEntries) {
      if (fits()) return true;
      if (key === storing || this.computing.has(key) || isStale(entry)) continue;
      this.plainEntries.delete(key);
      if (this.entries.peek(key) !== entry) continue;
      const coded = gzipped(entry.body);
      if (coded) this.storeCoded(key, entry, coded);
    }
    return fits();
  }

  /** What the answer stored under `key` counts against the bound (0: none). */
  private heldFor(key: string): number {
    return this.entries?.info(key)?.size ?? 0;
  }

  /** A plain entry replaced by its coded twin (the same serial: its aliases stay valid). */
  private storeCoded(key: string, entry: Entry, coded: Buffer): void {
    storeIndexed(this.entries!, this.entryIndex, key, { ...entry, body: coded, coded: true });
    this.keepPlain(entry.serial, entry.body);
  }

  /** Keeps the plain copy of a coded entry's body, within what the answers leave of their bound. */
  private keepPlain(serial: number, plain: Buffer): void {
    if (!mechanismOn('plain-copies')) return;
    this.plain?.set(serial, plain);
    this.trimPlain();
  }

  /** Drops the least read plain copies until the answers and their copies fit the answers' bound. */
  private trimPlain(): void {
    if (!this.plain || !this.entries) return;
    while (this.plain.size > 0 && this.entries.calculatedSize + this.plain.calculatedSize > this.answerBytes)
      this.plain.pop();
  }

  /** An entry's plain bytes: its body, or the kept (else inflated, then kept) copy of its coded body. */
  plainBody(entry: Entry): Buffer {
    if (!entry.coded) return entry.body;
    let plain = this.plain?.get(entry.serial);
    if (!plain) {
      plain = gunzipped(entry.body);
      this.keepPlain(entry.serial, plain);
    }
    return plain;
  }
}

/**
 * A stale entry's plain body and headers with its rows rendered again, and the counts and the total
 * read again (null: each not stale); null when one cannot be rewritten. `inPlace`: the counts may be
 * written into `body` itself.
 */
function rewrite(
  entry: Entry,
  body: Buffer,
  rows: ((body: Buffer) => Buffer | null) | null,
  counts: ReadonlyMap<number, number> | null,
  total: number | null,
  inPlace: boolean,
): (Representation & { countRuns?: CountRuns }) | null {
  let countRuns = entry.countRuns;
  // Rows first: the counts they show are current, and their runs are found again in the new body.
  if (rows) {
    const withRows = rows(body);
    if (!withRows) return null;
    body = withRows;
    countRuns = undefined;
  }
  let answer: Representation | null = { body, headers: entry.headers };
  if (counts) {
    const withCounts = entry.rewriteCounts!.rewrite(body, counts, countRuns, inPlace);
    if (!withCounts) return null;
    answer = { body: withCounts.body, headers: entry.headers };
    countRuns = withCounts.runs;
  }
  // The total is rewritten in the envelope's tail, after every count: the runs stay where they are.
  if (total !== null) answer = entry.rewriteTotal!.rewrite(answer, total);
  return answer && { ...answer, ...(countRuns && { countRuns }) };
}
