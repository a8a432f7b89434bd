import { randomBytes } from 'node:crypto';
import { BlockList, isIP } from 'node:net';
import type { Scope } from '../core/context/scope.js';
import { ApiError, invalidParams } from '../core/errors/errors.js';
import { assertAdministrator, assertAllowed } from '../core/rules/permissions.js';
import type { WebhookDelivery, WebhookEndpoint } from '../generated/sqlite/client.js';
import { managesTickets } from '../tickets/model.js';
import { subscribes } from '../core/rules/subscribed-types.js';
import {
  ATTENDEE_OPERATIONS,
  type ChangeOperation,
  type RecordOperation,
  TICKET_OPERATIONS,
} from '../core/db/transactions.js';
import { SYNC_TYPES, type SyncType } from './change-log.js';

// Webhook endpoints and their delivery log (administrators only, GraphQL and the `calendar` command);
// the deliveries themselves are made by `webhook-dispatcher.ts` from the change log.

const RECORD_OPERATIONS: readonly RecordOperation[] = ['created', 'updated', 'trashed', 'deleted'];
/** What can happen to each resource type: ticket types are not trashed; attendees have their own steps. */
const OPERATIONS: Record<SyncType, readonly ChangeOperation[]> = {
  event: RECORD_OPERATIONS,
  venue: RECORD_OPERATIONS,
  organizer: RECORD_OPERATIONS,
  category: RECORD_OPERATIONS,
  tag: RECORD_OPERATIONS,
  ticket: TICKET_OPERATIONS,
  attendee: ATTENDEE_OPERATIONS,
};
/** Every event type an endpoint may subscribe to: `<resource>.<operation>`. */
export const WEBHOOK_EVENT_TYPES: readonly string[] = SYNC_TYPES.flatMap((type) =>
  OPERATIONS[type].map((operation) => `${type}.${operation}`),
);

/**
 * The types of summarised deliveries: the changes of one series write, of one import run. An endpoint
 * subscribed to one of the change types a summary covers (`event.updated`, `event.*`) receives it too.
 */
export const SERIES_SUMMARY = 'event.series.updated';
export const IMPORT_RUN_SUMMARY = 'import.run.updated';
export const SUMMARY_EVENT_TYPES: readonly string[] = [SERIES_SUMMARY, IMPORT_RUN_SUMMARY];

/**
 * Whether an endpoint subscribed to `events` wants a delivery of `type` covering changes of the types
 * `covers` (a single change covers its own type): its own type or any change it covers is subscribed
 * to. Covering nothing (a user's change) it is never sent.
 */
export function wants(events: string, type: string, covers: readonly string[]): boolean {
  if (!covers.length) return false;
  return subscribes(events, type) || covers.some((covered) => subscribes(events, covered));
}

function parseEventTypes(events: readonly string[]): string {
  const list = [...new Set(events.flatMap((entry) => entry.split(',')).map((entry) => entry.trim()))].filter(
    Boolean,
  );
  const known = (entry: string) =>
    entry === '*' ||
    WEBHOOK_EVENT_TYPES.includes(entry) ||
    SUMMARY_EVENT_TYPES.includes(entry) ||
    (entry.endsWith('.*') && (SYNC_TYPES as readonly string[]).includes(entry.slice(0, -2)));
  const unknown = list.filter((entry) => !known(entry));
  if (!list.length || unknown.length)
    throw invalidParams({
      events: `Give one or more of *, <type>.*, ${[...WEBHOOK_EVENT_TYPES, ...SUMMARY_EVENT_TYPES].join(', ')}${unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''}.`,
    });
  return list.join(',');
}

// ---- Where deliveries may go (SSRF) ------------------------------------------------------------------

const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  PRIVATE.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const)
  PRIVATE.addSubnet(network, prefix, 'ipv6');

/** Loopback, private, link-local, shared, multicast or reserved: never a webhook target by default. */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return isPrivateAddress(mapped[1]!);
  const family = isIP(address);
  if (family === 0) return true;
  return PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Longest endpoint URL accepted: what browsers and proxies reliably carry. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;
/** Longest free-text description of an endpoint. */
export const MAX_WEBHOOK_DESCRIPTION_LENGTH = 500;

/** An http(s) URL without credentials; a literal private address refused unless allowed. */
export function checkWebhookUrl(text: string, allowPrivate: boolean): string {
  if (text.length > MAX_WEBHOOK_URL_LENGTH)
    throw invalidParams({ url: `At most ${MAX_WEBHOOK_URL_LENGTH} characters.` });
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalidParams({ url: 'Not a URL.' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw invalidParams({ url: 'Only http and https URLs are allowed.' });
  if (url.username || url.password) throw invalidParams({ url: 'Credentials in the URL are not allowed.' });
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && (isIP(host) ? isPrivateAddress(host) : /^localhost$|\.localhost$/i.test(host)))
    throw invalidParams({
      url: 'Private, loopback and link-local addresses are refused (CALENDAR_WEBHOOKS_ALLOW_PRIVATE).',
    });
  return url.toString();
}

// ---- Administration ----------------------------------------------------------------------------------

export type EndpointView = Omit<WebhookEndpoint, 'secret' | 'claimedBy' | 'claimedUntil'>;

const VIEW = {
  id: true,
  url: true,
  events: true,
  description: true,
  enabled: true,
  disabledReason: true,
  cursor: true,
  failures: true,
  nextAttemptAt: true,
  createdAt: true,
  personalData: true,
} as const;

function endpointNotFound(): ApiError {
  return new ApiError(404, 'webhook_not_found', 'No webhook endpoint has this id.');
}

/** A signing secret in the Standard Webhooks form: `whsec_` and base64 of 24 random bytes. */
function newSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/**
 * Registers an endpoint; it receives the changes committed from now on (its cursor starts at the end
 * of the log). The secret is returned here only. `personalData`: its attendee deliveries carry the
 * attendee's name and e-mail, and `attendee.created` its token: asked for by one who may manage
 * webhooks and see attendees (both rules, their own modules).
 */
export async function addWebhookEndpoint(
  scope: Scope,
  input: {
    url: string;
    events: readonly string[];
    description?: string | null;
    personalData?: boolean | null;
  },
): Promise<{ endpoint: EndpointView; secret: string }> {
  assertAdministrator(scope.viewer);
  const personalData = input.personalData === true;
  if (personalData) assertAllowed(scope.viewer, managesTickets(scope.viewer));
  const url = checkWebhookUrl(input.url, scope.config.webhooks.allowPrivate);
  const events = parseEventTypes(input.events);
  if ((input.description ?? '').length > MAX_WEBHOOK_DESCRIPTION_LENGTH)
    throw invalidParams({ description: `At most ${MAX_WEBHOOK_DESCRIPTION_LENGTH} characters.` });
  const secret = newSecret();
  const endpoint = await scope.writes.run(scope, async ({ tx }) => {
    const last = await tx.changeLog.findFirst({ orderBy: { id: 'desc' }, select: { id: true } });
    return tx.webhookEndpoint.create({
      data: {
        url,
        events,
        secret,
        description: input.description ?? '',
        cursor: last?.id ?? 0,
        personalData,
      },
      select: VIEW,
    });
  });
  return { endpoint, secret };
}

export async function listWebhookEndpoints(scope: Scope): Promise<EndpointView[]> {
  assertAdministrator(scope.viewer);
  return scope.db.webhookEndpoint.findMany({ orderBy: { id: 'asc' }, select: VIEW });
}

export async function removeWebhookEndpoint(scope: Scope, id: number): Promise<EndpointView> {
  assertAdministrator(scope.viewer);
  return scope.writes.run(scope, async ({ tx }) => {
    const endpoint = await tx.webhookEndpoint.findUnique({ where: { id }, select: VIEW });
    if (!endpoint) throw endpointNotFound();
    await tx.webhookEndpoint.delete({ where: { id } });
    return endpoint;
  });
}

/** Enables (again: failures reset, retried at once) or disables an endpoint. */
export async function setWebhookEndpointEnabled(
  scope: Scope,
  id: number,
  enabled: boolean,
): Promise<EndpointView> {
  assertAdministrator(scope.viewer);
  return scope.writes.run(scope, async ({ tx }) => {
    const found = await tx.webhookEndpoint.findUnique({ where: { id }, select: { id: true } });
    if (!found) throw endpointNotFound();
    return tx.webhookEndpoint.update({
      where: { id },
      data: enabled
        ? { enabled: true, disabledReason: null, failures: 0, nextAttemptAt: null }
        : { enabled: false, disabledReason: 'disabled by an administrator' },
      select: VIEW,
    });
  });
}

/** The endpoint's latest delivery attempts, newest first. */
export async function webhookDeliveries(scope: Scope, id: number, limit = 50): Promise<WebhookDelivery[]> {
  assertAdministrator(scope.viewer);
  if (!Number.isInteger(limit) || limit < 1 || limit > 500)
    throw invalidParams({ limit: 'Must be between 1 and 500.' });
  const found = await scope.db.webhookEndpoint.findUnique({ where: { id }, select: { id: true } });
  if (!found) throw endpointNotFound();
  return scope.db.webhookDelivery.findMany({
    where: { endpointId: id },
    orderBy: { id: 'desc' },
    take: limit,
  });
}
