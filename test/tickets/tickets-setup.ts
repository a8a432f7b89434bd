import supertest from 'supertest';
import { buildApp } from '../../src/app.js';
import { createDb } from '../../src/core/db/client.js';
import { createLogger } from '../../src/core/ops/logger.js';
import { WritePipeline } from '../../src/core/db/transactions.js';
import { type GqlTarget, dataOf, graphqlClient } from '../helpers/graphql.js';
import type { Harness } from '../helpers/harness.js';
import type { Credentials } from '../helpers/users.js';

// What the ticket tests share: GraphQL documents, a ticket type made through the API, and a second
// app on the harness's database (another instance: its own pool and pipeline).

export const RSVP = `mutation ($input: RsvpInput!) {
  rsvp(input: $input) { token attendee { id status guests name email checkInCode } }
}`;

export const CANCEL = `mutation ($token: String!) { cancelRsvp(token: $token) { id status } }`;

export const CREATE_TYPE = `mutation ($eventId: Int!, $input: TicketTypeInput!) {
  createTicketType(eventId: $eventId, input: $input) { id salesStart salesEnd salesStartUtc salesEndUtc }
}`;

export const TYPES_OF_EVENT = `query ($id: Int!, $password: String) {
  event(id: $id, password: $password) { databaseId ticketTypes { id name onSale availability { capacity available soldOut waitlist } } }
}`;

export type TicketTypeFields = Record<string, unknown>;

/** A ticket type written by `as` (an editor) through GraphQL; returns its id. */
export async function createType(
  target: GqlTarget,
  as: Credentials,
  eventId: number,
  input: TicketTypeFields,
): Promise<number> {
  const gql = graphqlClient(target);
  const data = dataOf(await gql(CREATE_TYPE, { eventId, input: { name: 'Entry', ...input } }, as));
  return data.createTicketType.id as number;
}

/** An RSVP's answer, data or error (`code` from `extensions.code`). */
export async function rsvp(target: GqlTarget, input: Record<string, unknown>, as?: Credentials) {
  const result = await graphqlClient(target)(RSVP, { input }, as);
  return {
    confirmation: result.data?.rsvp as
      { token: string; attendee: { id: number; status: string; checkInCode: string } } | null | undefined,
    code: result.errors?.[0]?.extensions.code as string | undefined,
    errors: result.errors,
  };
}

/** Another app on the same database, as a second instance would serve it. */
export async function secondInstance(h: Harness) {
  const db = await createDb(h.config.databaseUrl);
  const app = buildApp({ db, config: h.config, writes: new WritePipeline(), logger: createLogger('silent') });
  return { http: supertest(app.callback()), close: () => db.$disconnect() };
}
