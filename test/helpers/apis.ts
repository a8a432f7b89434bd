import { API, type Harness } from './harness.js';
import { graphqlClient } from './graphql.js';
import type { Credentials } from './users.js';

// The rows of a table over both APIs: the same question asked the REST way and the GraphQL way, with
// the answers brought to one form, so that one test asserts the behaviour both APIs share.

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary response paths */
export interface Read {
  /** The HTTP status REST answers, or the status GraphQL's error names (200 without an error). */
  status: number;
  code?: string;
  /** The REST body, or the GraphQL field (`venue`, `organizerBySlug`, …). */
  body: any;
}

export interface ListFilter {
  event?: number;
  hasEvents?: boolean;
  onlyWithUpcoming?: boolean;
  search?: string;
  status?: 'draft';
  page?: number;
}

export interface List {
  status: number;
  code?: string;
  /** The names listed, sorted. */
  names: string[];
  total?: number;
  totalPages?: number;
  /** REST's `data`, or GraphQL's `extensions.data`, of an error. */
  data?: any;
}

export interface Api {
  name: 'REST' | 'GraphQL';
  read(key: { id: number } | { slug: string }, as?: Credentials): Promise<Read>;
  list(filter: ListFilter, as?: Credentials): Promise<List>;
}

/**
 * Reads of venues or organizers on both APIs: GET /<kind>s/{id}, /<kind>s/by-slug/{slug} and
 * /<kind>s, and GraphQL's `<kind>`, `<kind>BySlug` and `<kind>s` selecting `fields`.
 */
export function linkedPostApis(
  harness: () => Harness,
  kind: 'venue' | 'organizer',
  fields: string,
): [rest: Api, graphql: Api] {
  const gql = graphqlClient(harness, { status: 200 });
  const plural = `${kind}s`;
  const Filter = kind === 'venue' ? 'VenueFilter' : 'OrganizerFilter';

  const rest: Api = {
    name: 'REST',
    async read(key, as) {
      const path = 'id' in key ? `${key.id}` : `by-slug/${key.slug}`;
      const request = harness().http.get(`${API}/${plural}/${path}`);
      if (as) request.auth(as.login, as.password);
      const res = await request;
      return { status: res.status, code: res.body.code, body: res.body };
    },
    async list(filter, as) {
      const query = new URLSearchParams();
      if (filter.event) query.set('event', String(filter.event));
      if (filter.hasEvents !== undefined) query.set('has_events', filter.hasEvents ? '1' : '0');
      if (filter.onlyWithUpcoming) query.set('only_with_upcoming', '1');
      if (filter.search) query.set('search', filter.search);
      if (filter.status) query.set('status', filter.status);
      if (filter.page) query.set('page', String(filter.page));
      const request = harness().http.get(`${API}/${plural}?${query}`);
      if (as) request.auth(as.login, as.password);
      const { status, body } = await request;
      if (status !== 200) return { status, code: body.code, names: [], data: body.data };
      return {
        status,
        names: body[plural].map((item: Record<string, string>) => item[kind]).sort(),
        total: body.total,
        totalPages: body.total_pages,
      };
    },
  };

  const graphql: Api = {
    name: 'GraphQL',
    async read(key, as) {
      const query =
        'id' in key
          ? `{ one: ${kind}(id: ${key.id}) { ${fields} } }`
          : `{ one: ${kind}BySlug(slug: "${key.slug}") { ${fields} } }`;
      const { data, errors } = await gql(query, {}, as);
      const extensions = errors?.[0]?.extensions;
      return { status: extensions?.http.status ?? 200, code: extensions?.code, body: data?.one };
    },
    async list({ page, status, ...filter }, as) {
      const query = `query($filter: ${Filter}, $page: Int) {
        list: ${plural}(filter: $filter, page: $page) { pageInfo { total totalPages } items { name } } }`;
      const variables = { filter: { ...filter, ...(status ? { status: [status] } : {}) }, page };
      const { data, errors } = await gql(query, variables, as);
      const extensions = errors?.[0]?.extensions;
      if (extensions)
        return { status: extensions.http.status, code: extensions.code, names: [], data: extensions.data };
      return {
        status: 200,
        names: data!.list.items.map((item: { name: string }) => item.name).sort(),
        total: data!.list.pageInfo.total,
        totalPages: data!.list.pageInfo.totalPages,
      };
    },
  };

  return [rest, graphql];
}
