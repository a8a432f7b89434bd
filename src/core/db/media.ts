import type { Prisma } from '../../generated/sqlite/client.js';
import { invalidParams } from '../errors/errors.js';
import { MAX_RECORD_ID } from '../rules/ids.js';
import { type Viewer, can } from '../rules/permissions.js';

// The `image` parameter of events, venues and organizers (docs/reference.md §6.6): an existing media id, or
// an http(s) URL that is recorded as media (never downloaded) when the caller may upload files; empty removes
// the image. Checked before permissions (a 400), recorded after them.
// Never downloaded (docs/reference/compatibility.md, deviation D24): the reference fetches the file and refuses a URL it cannot
// reach, which would make every write wait on a third-party host and let writers make this server
// request any address. The URL is checked here instead, the one place image input is read.

export type ImageChoice = { kind: 'none' } | { kind: 'media'; id: number } | { kind: 'url'; url: string };

const MIME_BY_EXTENSION: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  svg: 'image/svg+xml',
  bmp: 'image/bmp',
  ico: 'image/x-icon',
};

/** The longest image URL kept, as sent and as stored (webhook URLs have the same bound). */
export const MAX_IMAGE_URL_LENGTH = 2048;

/**
 * An absolute http(s) URL with a host (no `javascript:`, `data:` or relative URL), of reasonable
 * length, with no user name or password: it is shown to every reader of the record.
 */
function httpUrl(text: string): URL | null {
  if (text.length > MAX_IMAGE_URL_LENGTH) return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') &&
    url.hostname !== '' &&
    url.username === '' &&
    url.password === '' &&
    url.href.length <= MAX_IMAGE_URL_LENGTH
    ? url
    : null;
}

/** Validates an `image` value; `param` names it in the 400 (`image`, or a nested name). */
export async function checkImage(
  tx: Prisma.TransactionClient,
  viewer: Viewer,
  value: unknown,
  param = 'image',
): Promise<ImageChoice> {
  const bad = () => invalidParams({ [param]: 'Invalid parameter.' });
  if (value === '' || value === 0 || value === '0' || value === false || value === null)
    return { kind: 'none' };
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : null;
  if (text === null) throw bad();
  if (/^\d+$/.test(text)) {
    // Ids are 32-bit integers in both databases; a larger number can only be a bad id.
    if (Number(text) > MAX_RECORD_ID) throw bad();
    const media = await tx.media.findUnique({
      where: { id: Number(text) },
      select: { id: true, mimeType: true },
    });
    if (!media || (media.mimeType !== '' && !media.mimeType.startsWith('image/'))) throw bad();
    return { kind: 'media', id: media.id };
  }
  const url = httpUrl(text);
  if (!url || !can(viewer, 'upload_files')) throw bad();
  return { kind: 'url', url: url.toString() };
}

/** The media id to store for a checked choice (a URL already recorded is reused). */
export async function recordImage(
  tx: Prisma.TransactionClient,
  viewer: Viewer,
  choice: ImageChoice,
): Promise<number | null> {
  if (choice.kind === 'none') return null;
  if (choice.kind === 'media') return choice.id;
  const existing = await tx.media.findFirst({ where: { url: choice.url }, select: { id: true } });
  if (existing) return existing.id;
  const extension = new URL(choice.url).pathname.split('.').pop()?.toLowerCase() ?? '';
  const media = await tx.media.create({
    data: { url: choice.url, mimeType: MIME_BY_EXTENSION[extension] ?? '', authorId: viewer.userId },
    select: { id: true },
  });
  return media.id;
}
