import { readFile, stat } from 'node:fs/promises';
import type { Config } from '../../config.js';
import { CsvReader, type CsvType } from './csv.js';
import { IcsReader } from './ics.js';
import type { Reader } from './records.js';
import { TecReader } from './tec.js';

// Where an import reads from: a file, or a URL fetched within a size cap and a time limit, with the
// validators of the last answer (a subscribed feed that did not change answers 304 and costs nothing).

export const IMPORT_TYPES = ['tec', 'ics', 'csv'] as const;
export type ImportType = (typeof IMPORT_TYPES)[number];

/** The largest feed or file read (bytes). */
export const MAX_SOURCE_BYTES = 50 * 1024 * 1024;
export const SOURCE_TIMEOUT_MS = 60_000;

export interface SourceSpec {
  type: ImportType;
  /** An API root (tec), a URL or a file (ics, csv). */
  location: string;
  user?: string;
  appPassword?: string;
  /** csv only. */
  csvType?: CsvType;
}

export interface Validators {
  etag?: string | null;
  lastModified?: string | null;
}

export type Loaded = { changed: false } | { changed: true; text: string; validators: Validators };

const isUrl = (location: string) => /^(https?|webcal):\/\//i.test(location);

/** The text of a file or URL, unless the URL answers that nothing changed since `validators`. */
export async function loadText(location: string, validators: Validators = {}): Promise<Loaded> {
  if (!isUrl(location)) {
    const info = await stat(location);
    if (info.size > MAX_SOURCE_BYTES) throw new Error(`${location} is larger than ${MAX_SOURCE_BYTES} bytes`);
    return { changed: true, text: await readFile(location, 'utf8'), validators: {} };
  }
  const url = location.replace(/^webcal:/i, 'https:');
  const headers: Record<string, string> = {};
  if (validators.etag) headers['if-none-match'] = validators.etag;
  if (validators.lastModified) headers['if-modified-since'] = validators.lastModified;
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(SOURCE_TIMEOUT_MS) });
  if (response.status === 304) return { changed: false };
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > MAX_SOURCE_BYTES) throw new Error(`${url} is larger than ${MAX_SOURCE_BYTES} bytes`);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const body = response.body?.getReader();
  for (let part = await body?.read(); part && !part.done; part = await body?.read()) {
    size += part.value.byteLength;
    if (size > MAX_SOURCE_BYTES) {
      await body?.cancel();
      throw new Error(`${url} is larger than ${MAX_SOURCE_BYTES} bytes`);
    }
    chunks.push(part.value);
  }
  return {
    changed: true,
    text: Buffer.concat(chunks).toString('utf8'),
    validators: { etag: response.headers.get('etag'), lastModified: response.headers.get('last-modified') },
  };
}

/** The reader of a source; `text` is what `loadText` read (not used by TEC, which pages its API). */
export function readerFor(spec: SourceSpec, config: Pick<Config, 'siteTimezone'>, text = ''): Reader {
  switch (spec.type) {
    case 'tec':
      return new TecReader(spec.location, { user: spec.user, appPassword: spec.appPassword });
    case 'ics':
      return new IcsReader(spec.location, text, { siteTimezone: config.siteTimezone });
    case 'csv':
      return new CsvReader(spec.location, text, spec.csvType ?? 'events', {
        siteTimezone: config.siteTimezone,
      });
  }
}
