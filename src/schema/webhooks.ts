import { builder } from './builder.js';
import type { WebhookDelivery as DeliveryRow } from '../generated/sqlite/client.js';
import {
  type EndpointView,
  WEBHOOK_EVENT_TYPES,
  addWebhookEndpoint,
  listWebhookEndpoints,
  removeWebhookEndpoint,
  setWebhookEndpointEnabled,
  webhookDeliveries,
} from '../services/webhooks.js';

// Webhook administration (administrators): endpoints, their secrets (shown once), the delivery log.

const WebhookEndpoint = builder.objectRef<EndpointView>('WebhookEndpoint').implement({
  fields: (t) => ({
    id: t.exposeInt('id'),
    url: t.exposeString('url'),
    events: t.stringList({ resolve: (endpoint) => endpoint.events.split(',') }),
    description: t.exposeString('description'),
    enabled: t.exposeBoolean('enabled'),
    disabledReason: t.exposeString('disabledReason', { nullable: true }),
    failures: t.exposeInt('failures', { description: 'Consecutive failed attempts' }),
    nextAttemptAt: t.expose('nextAttemptAt', { type: 'DateTime', nullable: true }),
    cursor: t.exposeInt('cursor', { description: 'The last change-log sequence delivered or skipped' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const NewWebhookEndpoint = builder
  .objectRef<{ endpoint: EndpointView; secret: string }>('NewWebhookEndpoint')
  .implement({
    fields: (t) => ({
      endpoint: t.field({ type: WebhookEndpoint, resolve: (created) => created.endpoint }),
      secret: t.exposeString('secret', {
        description: 'The signing secret (whsec_…), shown only here: verify deliveries with it',
      }),
    }),
  });

const WebhookDelivery = builder.objectRef<DeliveryRow>('WebhookDelivery').implement({
  fields: (t) => ({
    id: t.exposeInt('id'),
    messageId: t.exposeString('messageId', {
      description: 'The webhook-id header (the same on every retry)',
    }),
    eventType: t.exposeString('eventType'),
    sequence: t.exposeInt('changeId'),
    attempt: t.exposeInt('attempt'),
    succeeded: t.exposeBoolean('succeeded'),
    status: t.exposeInt('status', { nullable: true, description: 'The HTTP status answered, if any' }),
    error: t.exposeString('error', { nullable: true }),
    durationMs: t.exposeInt('durationMs'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
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
    description: "An endpoint's delivery attempts, newest first (administrators)",
    args: { endpointId: t.arg.int({ required: true }), limit: t.arg.int({ defaultValue: 50 }) },
    resolve: (_root, { endpointId, limit }, ctx) => webhookDeliveries(ctx, endpointId, limit ?? 50),
  }),
}));

builder.mutationFields((t) => ({
  createWebhookEndpoint: t.field({
    type: NewWebhookEndpoint,
    description: `Registers an endpoint for changes committed from now on. Events: *, <type>.*, or any of ${WEBHOOK_EVENT_TYPES.join(', ')}`,
    args: {
      url: t.arg.string({ required: true, description: 'http or https' }),
      events: t.arg.stringList({ required: true }),
      description: t.arg.string(),
    },
    resolve: (_root, args, ctx) => addWebhookEndpoint(ctx, args),
  }),
  deleteWebhookEndpoint: t.field({
    type: WebhookEndpoint,
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, { id }, ctx) => removeWebhookEndpoint(ctx, id),
  }),
  setWebhookEndpointEnabled: t.field({
    type: WebhookEndpoint,
    description: 'Enabling resets the failure count and retries at once',
    args: { id: t.arg.int({ required: true }), enabled: t.arg.boolean({ required: true }) },
    resolve: (_root, { id, enabled }, ctx) => setWebhookEndpointEnabled(ctx, id, enabled),
  }),
}));
