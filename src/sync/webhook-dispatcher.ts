import { randomUUID } from 'node:crypto';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { Config } from '../core/config/config.js';
import type { Db } from '../core/db/client.js';
import type { Logger } from '../core/ops/logger.js';
import { readCommittedAfter } from './change-log.js';
import { forgetHeldToken, pruneHeldTokens } from '../tickets/reservations/held-tokens.js';
import { type Delivery, awaitsMore, deliveryOf, unitAt } from './webhook-groups.js';
import { isPrivateAddress, wants } from './webhooks.js';

// Delivers the change log to the webhook endpoints, in process: the log is the outbox. Each endpoint
// has a cursor (the last sequence delivered or skipped) that moves only after its target answered 2xx,
// so a crash between a commit and its delivery loses nothing (the next run sends it; at least once).
// One endpoint's changes go one at a time, in sequence order, so a record's changes arrive in order; a
// failure stops the endpoint until its retry time (exponential backoff), and too many consecutive
// failures disable it. Several instances may run this: an endpoint is claimed (a row update that only
// succeeds when no live claim exists) before its turn, and a crashed instance's claim runs out.
// The rows of a grouped write (a series edit, an import run) go as one summary (`webhook-groups.ts`).

interface WebhookSettings {
  /** Every instance polls this often for changes other instances committed (its own wake it at once). */
  pollMs: number;
  timeoutMs: number;
  /** First retry delay; doubled on each further failure, at most `maxBackoffMs`. */
  backoffMs: number;
  maxBackoffMs: number;
  /** Consecutive failed attempts that disable an endpoint. */
  maxFailures: number;
  allowPrivate: boolean;
}

/** Log rows read at a time (a group's summary reads on past it). */
const BATCH = 100;
const RESPONSE_LIMIT = 64 * 1024;

/** Resolves like `dns.lookup`, refusing private targets: the address checked is the one connected to. */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as LookupAddress[];
      const allowed = allowPrivate ? list : list.filter((entry) => !isPrivateAddress(entry.address));
      if (!allowed.length)
        return callback(
          Object.assign(new Error(`${hostname} resolves to a private address only`), { code: 'EPRIVATE' }),
          '',
          0,
        );
      if (options.all) return (callback as (e: null, a: LookupAddress[]) => void)(null, allowed);
      callback(null, allowed[0]!.address, allowed[0]!.family);
    });
  };
}

interface AttemptResult {
  status: number | null;
  error: string | null;
}

/** One signed POST, with a time limit on the whole exchange. */
export function post(
  url: string,
  headers: Record<string, string>,
  body: string,
  settings: Pick<WebhookSettings, 'timeoutMs' | 'allowPrivate'>,
): Promise<AttemptResult> {
  return new Promise((resolve) => {
    const target = new URL(url);
    const client = target.protocol === 'https:' ? https : http;
    let settled = false;
    const done = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const request = client.request(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
        lookup: guardedLookup(settings.allowPrivate),
        agent: false,
      },
      (response) => {
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > RESPONSE_LIMIT) response.destroy();
        });
        const status = response.statusCode ?? 0;
        const finish = () =>
          done({ status, error: status >= 200 && status < 300 ? null : `answered ${status}` });
        response.on('end', finish);
        response.on('close', finish);
        response.on('error', finish);
      },
    );
    const timer = setTimeout(() => {
      request.destroy();
      done({ status: null, error: `no answer within ${settings.timeoutMs} ms` });
    }, settings.timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) =>
      done({ status: null, error: error.code ? `${error.code}: ${error.message}` : error.message }),
    );
    request.end(body);
  });
}

export class WebhookDispatcher {
  private readonly instance = randomUUID();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = true;

  constructor(
    private readonly db: Db,
    private readonly config: Pick<Config, 'siteUrl'> & { webhooks: WebhookSettings },
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.stopped = false;
    this.kick();
  }

  /** Waits for the round in progress; nothing starts afterwards. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Runs a round now (after the one in progress): a write committed on this instance. */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.running = this.round()
      .catch((error: unknown) => this.logger.error({ err: error }, 'webhook round failed'))
      .finally(() => {
        this.running = null;
        if (this.stopped) return;
        if (this.again) {
          this.again = false;
          this.kick();
        } else this.timer = setTimeout(() => this.kick(), this.config.webhooks.pollMs).unref();
      });
  }

  /** Serves every endpoint with work due; resolves when they are done for now. */
  async round(): Promise<void> {
    const now = new Date();
    await pruneHeldTokens(this.db, now.getTime());
    const last = await this.db.changeLog.findFirst({ orderBy: { id: 'desc' }, select: { id: true } });
    if (!last) return;
    const due = await this.db.webhookEndpoint.findMany({
      where: {
        enabled: true,
        cursor: { lt: last.id },
        OR: [{ nextAttemptAt: null }, { nextAttemptAt: { lte: now } }],
      },
      select: { id: true },
    });
    await Promise.all(due.map(({ id }) => this.serve(id)));
  }

  /**
   * A claim is renewed before every attempt, so it only has to outlast one attempt (at most the
   * timeout) and the bookkeeping around it; after a crash the endpoint waits no longer than this.
   */
  private claimMs(): number {
    return this.config.webhooks.timeoutMs * 2 + 5_000;
  }

  /** Takes the endpoint unless another instance holds a live claim on it. */
  private async claim(id: number): Promise<boolean> {
    const now = new Date();
    const { count } = await this.db.webhookEndpoint.updateMany({
      where: {
        id,
        enabled: true,
        OR: [{ claimedUntil: null }, { claimedUntil: { lt: now } }, { claimedBy: this.instance }],
      },
      data: { claimedBy: this.instance, claimedUntil: new Date(now.getTime() + this.claimMs()) },
    });
    return count === 1;
  }

  private async serve(id: number): Promise<void> {
    if (!(await this.claim(id))) return;
    try {
      for (;;) {
        if (this.stopped) return;
        const endpoint = await this.db.webhookEndpoint.findUnique({ where: { id } });
        if (!endpoint?.enabled || endpoint.claimedBy !== this.instance) return;
        if (endpoint.nextAttemptAt && endpoint.nextAttemptAt > new Date()) return;
        const rows = await readCommittedAfter(this.db, endpoint.cursor, BATCH);
        if (!rows.length) return;
        const readAfter = (sequence: number, limit: number) => readCommittedAfter(this.db, sequence, limit);
        // A group read on past the batch ends it: the next batch starts after the group.
        for (let index = 0; index < rows.length;) {
          if (this.stopped) return;
          const unit = await unitAt(rows, index, BATCH, readAfter);
          // Held back until the run ends; the poll comes back for it.
          if (await awaitsMore(this.db, unit, new Date())) return;
          index += unit.rows.length;
          const delivery = deliveryOf(unit.rows, this.config.siteUrl);
          if (wants(endpoint.events, delivery.type, delivery.covers)) {
            const delivered = await this.deliver(endpoint, delivery);
            if (!delivered) return;
          } else {
            await this.db.webhookEndpoint.updateMany({
              where: { id, cursor: { lt: delivery.last } },
              data: { cursor: delivery.last },
            });
          }
        }
        if (rows.length < BATCH) return;
      }
    } finally {
      await this.db.webhookEndpoint
        .updateMany({
          where: { id, claimedBy: this.instance },
          data: { claimedBy: null, claimedUntil: null },
        })
        .catch((error: unknown) => this.logger.warn({ err: error }, 'webhook claim not released'));
    }
  }

  /** One attempt; true when the endpoint took it (the cursor moved past it). */
  private async deliver(
    endpoint: { id: number; url: string; secret: string; failures: number; personalData: boolean },
    delivery: Delivery,
  ): Promise<boolean> {
    const settings = this.config.webhooks;
    const payload = JSON.stringify(await delivery.payload(this.db, endpoint));
    const { messageId } = delivery;
    const sentAt = new Date();
    let signature: string;
    try {
      signature = new Webhook(endpoint.secret).sign(messageId, sentAt, payload);
    } catch (error) {
      await this.failed(endpoint, delivery, { status: null, error: String(error) }, 0, true);
      return false;
    }
    // The claim covers this attempt.
    await this.db.webhookEndpoint.updateMany({
      where: { id: endpoint.id, claimedBy: this.instance },
      data: { claimedUntil: new Date(Date.now() + this.claimMs()) },
    });
    const started = performance.now();
    const result = await post(
      endpoint.url,
      {
        'content-type': 'application/json',
        'user-agent': 'calendar-service-webhooks',
        'webhook-id': messageId,
        'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
        'webhook-signature': signature,
      },
      payload,
      settings,
    );
    const durationMs = Math.round(performance.now() - started);
    if (result.error === null) {
      await this.db.$transaction([
        this.db.webhookEndpoint.updateMany({
          where: { id: endpoint.id, cursor: { lt: delivery.last } },
          data: { cursor: delivery.last, failures: 0, nextAttemptAt: null },
        }),
        this.db.webhookDelivery.create({
          data: {
            endpointId: endpoint.id,
            changeId: delivery.first,
            messageId,
            eventType: delivery.type,
            attempt: endpoint.failures + 1,
            status: result.status,
            durationMs,
            succeeded: true,
          },
        }),
        // A token held for this delivery is not kept a moment longer than it needs to be.
        ...(delivery.createdAttendee === null
          ? []
          : [forgetHeldToken(this.db, endpoint.id, delivery.createdAttendee)]),
      ]);
      endpoint.failures = 0;
      return true;
    }
    await this.failed(endpoint, delivery, result, durationMs, false);
    return false;
  }

  private async failed(
    endpoint: { id: number; failures: number },
    delivery: Delivery,
    result: AttemptResult,
    durationMs: number,
    fatal: boolean,
  ): Promise<void> {
    const settings = this.config.webhooks;
    const failures = endpoint.failures + 1;
    const disable = fatal || failures >= settings.maxFailures;
    const delay = Math.min(settings.backoffMs * 2 ** (failures - 1), settings.maxBackoffMs);
    await this.db.$transaction([
      this.db.webhookEndpoint.update({
        where: { id: endpoint.id },
        data: {
          failures,
          nextAttemptAt: new Date(Date.now() + delay),
          ...(disable
            ? {
                enabled: false,
                disabledReason: `${failures} consecutive failed deliveries (last: ${result.error})`,
              }
            : {}),
        },
      }),
      this.db.webhookDelivery.create({
        data: {
          endpointId: endpoint.id,
          changeId: delivery.first,
          messageId: delivery.messageId,
          eventType: delivery.type,
          attempt: failures,
          status: result.status,
          error: result.error?.slice(0, 500) ?? null,
          durationMs,
          succeeded: false,
        },
      }),
    ]);
    endpoint.failures = failures;
    if (disable) this.logger.warn({ endpoint: endpoint.id, failures }, 'webhook endpoint disabled');
    // Wake up for the retry even when nothing else happens.
    if (!disable && !this.stopped) setTimeout(() => this.kick(), delay + 5).unref();
  }
}
