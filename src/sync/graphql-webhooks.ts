import { builder } from '../core/graphql/schema/builder.js';
import type { WebhookDelivery as DeliveryRow } from '../generated/sqlite/client.js';
import {
  type EndpointView,
  SUMMARY_EVENT_TYPES,
  WEBHOOK_EVENT_TYPES,
  addWebhookEndpoint,
  listWebhookEndpoints,
  removeWebhookEndpoint,
  setWebhookEndpointEnabled,
  webhookDeliveries,
} from './webhooks.js';

// Webhook administration (administrators): endpoints, their secrets (shown once), the delivery log.

const WebhookEndpoint = builder.objectRef<EndpointView>('WebhookEndpoint').implement({
  description: 'A URL that receives signed change notifications (Standard Webhooks); administrators only',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Numeric id' }),
    url: t.exposeString('url', { description: 'The http(s) URL deliveries are POSTed to' }),
    events: t.stringList({
      description: 'The event types it subscribes to: `*`, `<type>.*` or exact types such as `event.created`',
      resolve: (endpoint) => endpoint.events.split(','),
    }),
    description: t.exposeString('description', {
      description: 'Free text given at registration ("" if none)',
    }),
    enabled: t.exposeBoolean('enabled', { description: 'Whether deliveries are being sent' }),
    personalData: t.exposeBoolean('personalData', {
      description:
        "Whether attendee deliveries carry the attendee's name and e-mail, and `attendee.created` its token",
    }),
    disabledReason: t.exposeString('disabledReason', {
      nullable: true,
      description:
        'Why it was disabled (by an administrator, or after too many consecutive failed deliveries); null while enabled',
    }),
    failures: t.exposeInt('failures', { description: 'Consecutive failed attempts' }),
    nextAttemptAt: t.expose('nextAttemptAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When a failed delivery is retried next (UTC); null when nothing is waiting for a retry',
    }),
    cursor: t.exposeInt('cursor', { description: 'The last change-log sequence delivered or skipped' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was registered (UTC)' }),
  }),
});

const NewWebhookEndpoint = builder
  .objectRef<{ endpoint: EndpointView; secret: string }>('NewWebhookEndpoint')
  .implement({
    description: 'A registered endpoint with its signing secret (returned by `createWebhookEndpoint` only)',
    fields: (t) => ({
      endpoint: t.field({
        type: WebhookEndpoint,
        description: 'The endpoint as registered',
        resolve: (created) => created.endpoint,
      }),
      secret: t.exposeString('secret', {
        description: 'The signing secret (whsec_…), shown only here: verify deliveries with it',
      }),
    }),
  });

const WebhookDelivery = builder.objectRef<DeliveryRow>('WebhookDelivery').implement({
  description: 'One attempt to deliver one change to a webhook endpoint',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Numeric id (increasing: newer attempts have larger ids)' }),
    messageId: t.exposeString('messageId', {
      description: 'The webhook-id header (the same on every retry)',
    }),
    eventType: t.exposeString('eventType', {
      description: 'The event type delivered, `<kind>.<operation>`, e.g. `event.updated`, `attendee.created`',
    }),
    sequence: t.exposeInt('changeId', { description: 'The change-log sequence number delivered' }),
    attempt: t.exposeInt('attempt', { description: 'The attempt number for this change, from 1' }),
    succeeded: t.exposeBoolean('succeeded', {
      description: 'Whether the endpoint answered with a 2xx status',
    }),
    status: t.exposeInt('status', { nullable: true, description: 'The HTTP status answered, if any' }),
    error: t.exposeString('error', {
      nullable: true,
      description: 'What went wrong (e.g. `answered 500`, a timeout or a network error); null on success',
    }),
    durationMs: t.exposeInt('durationMs', { description: 'How long the attempt took, in milliseconds' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the attempt was made (UTC)' }),
  }),
});

builder.queryFields((t) => ({
  webhookEndpoints: t.field({
    type: [WebhookEndpoint],
    description: 'Registered webhook endpoints (administrators)',
    resolve: (_root, _args, ctx) => listWebhookEndpoints(ctx),
  }),
  webhookDeliveries: t.field({
    type: [WebhookDelivery],
    description:
      "An endpoint's delivery attempts, newest first (administrators). Errors: rest_forbidden (401/403), webhook_not_found (404), rest_invalid_param (400) for a limit out of range",
    args: {
      endpointId: t.arg.int({ required: true, description: 'The webhook endpoint id' }),
      limit: t.arg.int({ defaultValue: 50, description: 'How many attempts to return, 1–500' }),
    },
    resolve: (_root, { endpointId, limit }, ctx) => webhookDeliveries(ctx, endpointId, limit ?? 50),
  }),
}));

builder.mutationFields((t) => ({
  createWebhookEndpoint: t.field({
    type: NewWebhookEndpoint,
    description: `Registers an endpoint for changes committed from now on (administrators). Events: *, <type>.*, or any of ${[...WEBHOOK_EVENT_TYPES, ...SUMMARY_EVENT_TYPES].join(', ')} (a summary also reaches an endpoint subscribed to a change it covers). Errors: rest_forbidden (401/403), rest_invalid_param (400) for a bad URL or event type`,
    args: {
      url: t.arg.string({ required: true, description: 'http or https, at most 2,048 characters' }),
      events: t.arg.stringList({
        required: true,
        description: 'The event types to receive (entries may also be comma-separated); at least one',
      }),
      description: t.arg.string({
        description: 'Free text to recognise the endpoint by, at most 500 characters',
      }),
      personalData: t.arg.boolean({
        defaultValue: false,
        description:
          "Attendee deliveries carry the attendee's name and e-mail, and `attendee.created` its token (which changes and cancels the reservation: keep the endpoint's data safe). Only for those who may also see attendees. Without it, attendee deliveries carry no personal data",
      }),
    },
    resolve: (_root, args, ctx) => addWebhookEndpoint(ctx, args),
  }),
  deleteWebhookEndpoint: t.field({
    type: WebhookEndpoint,
    description:
      'Removes an endpoint and its delivery log, returning it as it was (administrators). Errors: rest_forbidden (401/403), webhook_not_found (404)',
    args: { id: t.arg.int({ required: true, description: 'The webhook endpoint id' }) },
    resolve: (_root, { id }, ctx) => removeWebhookEndpoint(ctx, id),
  }),
  setWebhookEndpointEnabled: t.field({
    type: WebhookEndpoint,
    description:
      'Enables or disables an endpoint (administrators); enabling resets the failure count and retries at once. Errors: rest_forbidden (401/403), webhook_not_found (404)',
    args: {
      id: t.arg.int({ required: true, description: 'The webhook endpoint id' }),
      enabled: t.arg.boolean({ required: true, description: 'true to enable, false to disable' }),
    },
    resolve: (_root, { id, enabled }, ctx) => setWebhookEndpointEnabled(ctx, id, enabled),
  }),
}));
