import { isUtf8 } from 'node:buffer';
import { Readable, pipeline } from 'node:stream';
import { analyse } from 'chardet';
import { CsvError, parse } from 'csv-parse';
import iconv from 'iconv-lite';

// A CSV file as a spreadsheet saves it, read as a stream (a large file never sits whole in memory):
// its encoding given, else detected from its first bytes (BOM, then UTF-16 by its zero bytes, then
// UTF-8 validity, then a statistical guess), decoded as it is read, its separator (`,` `;` tab) the
// one its header line uses, its rows parsed by csv-parse, each with the line it starts on.
// docs/guide/import.md#csv-files-from-spreadsheets says the same for people.

/** What detection reads: the first 64 KiB. */
const SAMPLE_BYTES = 64 * 1024;
/** A row longer than this (characters) is a quote never closed, not a row: reading stops there. */
const MAX_ROW_CHARS = 1_000_000;
/** What a guess falls back to: what Excel writes in Western Europe and the Americas. */
const FALLBACK_ENCODING = 'windows-1252';

const SEPARATORS = [',', ';', '\t'] as const;
type Separator = (typeof SEPARATORS)[number];

/** A file's text or bytes, or a way to stream them (a file on disk: opened when read). */
export type CsvBytes = string | Uint8Array | (() => AsyncIterable<Uint8Array>);

interface Detected {
  encoding: string;
  /** How: named by the caller, by a byte-order mark, by UTF-16's zero bytes, valid UTF-8, or guessed. */
  by: 'given' | 'bom' | 'zero-bytes' | 'utf-8' | 'guess';
}

interface CsvRow {
  /** The line the row starts on (1 is the header's). */
  line: number;
  cells: string[];
}

interface CsvFile extends Detected {
  separator: Separator;
  /** The rows with a cell that is not blank, the header first; a broken row throws `UnreadableCsv`. */
  rows: AsyncIterable<CsvRow>;
}

/** The file cannot be read on from `line` on (a quote never closed). */
export class UnreadableCsv extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

/** Whether an encoding name can be decoded (`utf-8`, `windows-1252`, `utf-16le`, `latin1`, …). */
export function isKnownEncoding(name: string): boolean {
  return iconv.encodingExists(name);
}

// The WHATWG Encoding Standard's reading of labels that name a subset of a Windows code page: text
// labelled ISO-8859-1 is in practice Windows-1252 (curly quotes, the euro sign), and so on.
const WINDOWS_SUPERSET: Record<string, string> = {
  ascii: 'windows-1252',
  'iso-8859-1': 'windows-1252',
  'iso-8859-9': 'windows-1254',
};

/** The encoding of a file that starts with `sample`; `complete`: the sample is the whole file. */
export function detectEncoding(sample: Uint8Array, complete: boolean): Detected {
  const starts = (...bytes: number[]) => bytes.every((byte, i) => sample[i] === byte);
  if (starts(0xef, 0xbb, 0xbf)) return { encoding: 'utf-8', by: 'bom' };
  if (starts(0xff, 0xfe, 0, 0)) return { encoding: 'utf-32le', by: 'bom' };
  if (starts(0, 0, 0xfe, 0xff)) return { encoding: 'utf-32be', by: 'bom' };
  if (starts(0xff, 0xfe)) return { encoding: 'utf-16le', by: 'bom' };
  if (starts(0xfe, 0xff)) return { encoding: 'utf-16be', by: 'bom' };
  const utf16 = utf16ByZeroBytes(sample);
  if (utf16) return { encoding: utf16, by: 'zero-bytes' };
  // Zero bytes are valid UTF-8 but never in a spreadsheet's text.
  if (!sample.includes(0) && isUtf8(complete ? sample : wholeCharacters(sample)))
    return { encoding: 'utf-8', by: 'utf-8' };
  const best = analyse(sample)[0]?.name.toLowerCase();
  const encoding = best ? (WINDOWS_SUPERSET[best] ?? best) : FALLBACK_ENCODING;
  return { encoding: isKnownEncoding(encoding) ? encoding : FALLBACK_ENCODING, by: 'guess' };
}

/** UTF-16 without a BOM: Latin text has a zero byte in every other place (odd: little-endian). */
function utf16ByZeroBytes(sample: Uint8Array): string | null {
  const zeros = [0, 0];
  sample.forEach((byte, i) => {
    if (byte === 0) zeros[i % 2]!++;
  });
  const half = sample.length / 2;
  const [even, odd] = zeros as [number, number];
  if (odd > half * 0.3 && even < half * 0.02) return 'utf-16le';
  if (even > half * 0.3 && odd < half * 0.02) return 'utf-16be';
  return null;
}

/** The sample without a character its cut may have split (UTF-8 sequences are at most 4 bytes). */
function wholeCharacters(sample: Uint8Array): Uint8Array {
  let start = sample.length - 1;
  while (start > 0 && sample.length - start < 4 && (sample[start]! & 0xc0) === 0x80) start--;
  return start >= 0 && sample[start]! >= 0xc0 ? sample.subarray(0, start) : sample;
}

/** Where the first line ends (a line break outside quotes); -1 when `text` holds no whole line. */
function lineEnd(text: string): number {
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '"') quoted = !quoted;
    else if (!quoted && (char === '\n' || char === '\r')) return i;
  }
  return -1;
}

/** The separator the header line uses most (outside quotes); `,` when it uses none. */
export function separatorOf(header: string): Separator {
  const counts = new Map<string, number>(SEPARATORS.map((separator) => [separator, 0]));
  let quoted = false;
  for (const char of header) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && counts.has(char)) counts.set(char, counts.get(char)! + 1);
  }
  // A stable sort: a tie goes to the earlier separator.
  return [...SEPARATORS].sort((a, b) => counts.get(b)! - counts.get(a)!)[0]!;
}

async function* bytesOf(input: CsvBytes): AsyncGenerator<Buffer> {
  if (typeof input === 'string') yield Buffer.from(input, 'utf8');
  else if (input instanceof Uint8Array) yield Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  else for await (const chunk of input()) yield Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

/** The chunks of `iterator`, after `first`; stopped early, it stops `iterator` (the file is closed). */
async function* following<T>(first: T[], iterator: AsyncIterator<T>): AsyncGenerator<T> {
  try {
    yield* first;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  } finally {
    await iterator.return?.();
  }
}

/** Line breaks in a row's raw text, its own ending aside. */
const breaksIn = (raw: string) => raw.replace(/(?:\r\n|\r|\n)$/, '').match(/\r\n|\r|\n/g)?.length ?? 0;

/** Opens a CSV file: reads what detection needs, then streams its rows. */
export async function openCsv(input: CsvBytes, encoding?: string): Promise<CsvFile> {
  const bytes = bytesOf(input);
  const head: Buffer[] = [];
  let size = 0;
  let complete = false;
  while (size < SAMPLE_BYTES) {
    const next = await bytes.next();
    if (next.done) {
      complete = true;
      break;
    }
    head.push(next.value);
    size += next.value.length;
  }
  const detected: Detected = encoding
    ? { encoding, by: 'given' }
    : detectEncoding(Buffer.concat(head), complete);
  // iconv-lite drops a byte-order mark of the encoding it decodes.
  const decoder = iconv.decodeStream(detected.encoding);
  const text = pipeline(Readable.from(following(head, bytes)), decoder, () => {}) as AsyncIterable<string>;
  const chunks = text[Symbol.asyncIterator]();
  const start: string[] = [];
  let header = '';
  while (lineEnd(header) < 0 && header.length < SAMPLE_BYTES) {
    const next = await chunks.next();
    if (next.done) break;
    start.push(next.value);
    header += next.value;
  }
  const end = lineEnd(header);
  const separator = separatorOf(end < 0 ? header : header.slice(0, end));
  return { ...detected, separator, rows: rowsOf(following(start, chunks), separator) };
}

/** Why a row cannot be read, for people. */
function unreadableRow(error: CsvError, line: number): UnreadableCsv {
  const why =
    error.code === 'CSV_QUOTE_NOT_CLOSED'
      ? 'a quoted cell of this row is never closed'
      : error.code === 'CSV_MAX_RECORD_SIZE'
        ? `this row is longer than ${MAX_ROW_CHARS} characters (a quoted cell never closed?)`
        : error.message;
  return new UnreadableCsv(line, `${why}; nothing after it was read`);
}

async function* rowsOf(text: AsyncIterable<string>, separator: Separator): AsyncGenerator<CsvRow> {
  // A failing parser stream drops the rows it parsed but had not handed over yet: it skips the row
  // instead, and says after how many rows; reading stops there.
  let broken: CsvError | null = null;
  const parser = parse({
    delimiter: separator,
    // Whatever a file mixes; a line break inside quotes stays in its cell.
    record_delimiter: ['\r\n', '\n', '\r'],
    // A quote inside an unquoted cell is a character (`5" screen`), so no row is malformed but one
    // whose quote never closes; spaces after a separator are dropped (`a, "b, c"`).
    relax_quotes: true,
    ltrim: true,
    relax_column_count: true,
    max_record_size: MAX_ROW_CHARS,
    // The raw text, to count lines: csv-parse's own count takes a CRLF inside quotes for two.
    raw: true,
    skip_records_with_error: true,
    on_skip: (error) => {
      broken ??= error ?? null;
      return undefined;
    },
  });
  const records = pipeline(Readable.from(text), parser, () => {}) as AsyncIterable<{
    record: string[];
    raw: string;
  }>;
  const brokenAfter = (count: number): CsvError | null =>
    broken && Number(broken.records) <= count ? broken : null;
  let line = 1;
  let count = 0;
  for await (const { record, raw } of records) {
    const before = brokenAfter(count);
    if (before) throw unreadableRow(before, line);
    count++;
    // A line break in a cell is `\n`, whichever the spreadsheet wrote: the same sheet, the same text.
    const row = { line, cells: record.map((cell) => cell.replace(/\r\n?/g, '\n')) };
    line += breaksIn(raw) + 1;
    if (record.some((cell) => cell.trim())) yield row;
  }
  const last = brokenAfter(count);
  if (last) throw unreadableRow(last, line);
}
