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

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary response paths */
export interface Write {
  /** The HTTP status REST answers, or the status GraphQL's error names (200 without an error). */
  status: number;
  code?: string;
  /** REST's `data`, or GraphQL's `extensions.data`, of an error. */
  data?: any;
  /**
   * The post written, in GraphQL's names: REST's `<kind>` is `name`, snake_case keys are camelCase
   * and `stateprovince` is `stateProvince` (REST's values and dropped keys as they are).
   */
  body: any;
  /** The REST body as sent, or the GraphQL field. */
  raw: any;
}
/* eslint-enable @typescript-eslint/no-explicit-any */

/** A write's input in GraphQL's names (`name`, `authorId`, camelCase); REST gets them in its own. */
export type WriteInput = Record<string, unknown>;

export interface WriteApi {
  name: 'REST' | 'GraphQL';
  /** The status of a created post: REST's 201, GraphQL's 200. */
  created: 201 | 200;
  /** The name an error gives an input field: REST's (`organizer`, `geo_lat`) or GraphQL's own. */
  param(name: string): string;
  create(input: WriteInput, as?: Credentials): Promise<Write>;
  update(key: { id: number } | { slug: string }, input: WriteInput, as?: Credentials): Promise<Write>;
  remove(key: { id: number } | { slug: string }, force?: boolean, as?: Credentials): Promise<Write>;
}

const snake = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
const camel = (name: string) => name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());

/**
 * Writes of venues or organizers on both APIs: POST /<kind>s, PUT and DELETE /<kind>s/{id} and
 * /<kind>s/by-slug/{slug}, and GraphQL's create<Kind>, update<Kind>[BySlug] and delete<Kind>[BySlug]
 * selecting `fields`.
 */
export function linkedPostWriteApis(
  harness: () => Harness,
  kind: 'venue' | 'organizer',
  fields: string,
): [rest: WriteApi, graphql: WriteApi] {
  const gql = graphqlClient(harness, { status: 200 });
  const plural = `${kind}s`;
  const Kind = kind === 'venue' ? 'Venue' : 'Organizer';

  const restKey = (key: string) =>
    key === 'name'
      ? kind
      : key === 'authorId'
        ? 'author'
        : key === 'stateProvince'
          ? 'stateprovince'
          : snake(key);
  const restInput = (input: WriteInput) =>
    Object.fromEntries(Object.entries(input).map(([key, value]) => [restKey(key), value]));
  const restPath = (key: { id: number } | { slug: string }) =>
    'id' in key ? `${API}/${plural}/${key.id}` : `${API}/${plural}/by-slug/${key.slug}`;
  const restWrite = async (request: ReturnType<Harness['http']['post']>, as?: Credentials) => {
    if (as) request.auth(as.login, as.password);
    const { status, body } = await request;
    if (status >= 400) return { status, code: body.code, data: body.data, body, raw: body };
    const renamed = Object.fromEntries(
      Object.entries(body).map(([key, value]) => [
        key === kind ? 'name' : key === 'stateprovince' ? 'stateProvince' : camel(key),
        value,
      ]),
    );
    return { status, body: renamed, raw: body };
  };

  const rest: WriteApi = {
    name: 'REST',
    created: 201,
    param: restKey,
    create: (input, as) => restWrite(harness().http.post(`${API}/${plural}`).send(restInput(input)), as),
    update: (key, input, as) => restWrite(harness().http.put(restPath(key)).send(restInput(input)), as),
    remove: (key, force, as) =>
      restWrite(harness().http.delete(`${restPath(key)}${force ? '?force=true' : ''}`), as),
  };

  const graphqlWrite = async (mutation: string, variables: Record<string, unknown>, as?: Credentials) => {
    const { data, errors } = await gql(mutation, variables, as);
    const extensions = errors?.[0]?.extensions;
    if (extensions)
      return {
        status: extensions.http.status,
        code: extensions.code,
        data: extensions.data,
        body: extensions,
        raw: extensions,
      };
    return { status: 200, body: data!.one, raw: data!.one };
  };

  const graphql: WriteApi = {
    name: 'GraphQL',
    created: 200,
    param: (name) => name,
    create: (input, as) =>
      graphqlWrite(
        `mutation($input: Create${Kind}Input!) { one: create${Kind}(input: $input) { ${fields} } }`,
        { input },
        as,
      ),
    update: (key, input, as) =>
      'id' in key
        ? graphqlWrite(
            `mutation($id: Int!, $input: Update${Kind}Input!) { one: update${Kind}(id: $id, input: $input) { ${fields} } }`,
            { id: key.id, input },
            as,
          )
        : graphqlWrite(
            `mutation($slug: String!, $input: Update${Kind}BySlugInput!) {
              one: update${Kind}BySlug(slug: $slug, input: $input) { ${fields} } }`,
            { slug: key.slug, input },
            as,
          ),
    remove: (key, force, as) =>
      'id' in key
        ? graphqlWrite(
            `mutation($id: Int!, $force: Boolean) { one: delete${Kind}(id: $id, force: $force) { ${fields} } }`,
            { id: key.id, force },
            as,
          )
        : graphqlWrite(
            `mutation($slug: String!, $force: Boolean) { one: delete${Kind}BySlug(slug: $slug, force: $force) { ${fields} } }`,
            { slug: key.slug, force },
            as,
          ),
  };

  return [rest, graphql];
}
