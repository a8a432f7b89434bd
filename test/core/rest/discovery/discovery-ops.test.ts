import { readFileSync } from 'node:fs';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../../src/app.js';
import { type Db, createDb } from '../../../../src/core/db/client.js';
import { createLogger } from '../../../../src/core/ops/logger.js';
import { Lifecycle } from '../../../../src/core/ops/lifecycle.js';
import { type Harness, startHarness } from '../../../helpers/harness.js';

// Probes for operators: /healthz says the process answers, /readyz whether it may take traffic,
// /version what is running.

const manifest = JSON.parse(readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')) as {
  name: string;
  version: string;
};

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('GET /healthz', () => {
  it('is 200 while the process answers, whatever its dependencies say', async () => {
    const broken = {
      $queryRawUnsafe: () => Promise.reject(new Error('connect ECONNREFUSED')),
    } as unknown as Db;
    const app = buildApp({ db: broken, config: h.config, logger: createLogger('silent') });
    const res = await supertest(app.callback()).get('/healthz').expect(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('needs no credentials, even wrong ones', async () => {
    await h.http.get('/healthz').auth('nobody', 'wrong password').expect(200);
  });
});

describe('GET /readyz', () => {
  it('is 200 when the database answers', async () => {
    const res = await h.http.get('/readyz').expect(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({ status: 'ready', checks: { database: 'ok' } });
  });

  it('is 503 when the database does not answer, and says nothing more', async () => {
    const broken = {
      $queryRawUnsafe: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432 secret-detail')),
    } as unknown as Db;
    const app = buildApp({ db: broken, config: h.config, logger: createLogger('silent') });
    const res = await supertest(app.callback()).get('/readyz').expect(503);
    expect(res.body).toEqual({ status: 'unavailable', checks: { database: 'unavailable' } });
    expect(res.text).not.toContain('secret-detail');
  });

  it('is 503 when a real database server cannot be reached', async () => {
    const unreachable = await createDb('postgresql://nobody@127.0.0.1:1/none');
    const app = buildApp({ db: unreachable, config: h.config, logger: createLogger('silent') });
    const res = await supertest(app.callback()).get('/readyz').expect(503);
    expect(res.body.checks).toEqual({ database: 'unavailable' });
    await unreachable.$disconnect();
  });

  it('is 503 with status draining as soon as shutdown begins', async () => {
    const lifecycle = new Lifecycle();
    const app = buildApp({ db: h.db, config: h.config, logger: createLogger('silent'), lifecycle });
    await supertest(app.callback()).get('/readyz').expect(200);
    lifecycle.beginDraining();
    const res = await supertest(app.callback()).get('/readyz').expect(503);
    expect(res.body).toEqual({ status: 'draining', checks: { database: 'ok' } });
  });

  it('includes every registered dependency check (Redis when configured)', async () => {
    const lifecycle = new Lifecycle();
    lifecycle.addReadinessCheck('redis', () => Promise.reject(new Error('ECONNREFUSED')));
    const app = buildApp({ db: h.db, config: h.config, logger: createLogger('silent'), lifecycle });
    const res = await supertest(app.callback()).get('/readyz').expect(503);
    expect(res.body).toEqual({ status: 'unavailable', checks: { database: 'ok', redis: 'unavailable' } });
  });
});

describe('GET /version', () => {
  it('names the service, its version and its entry points', async () => {
    const res = await h.http.get('/version').expect(200);
    expect(res.body).toEqual({
      name: manifest.name,
      version: manifest.version,
      rest: { namespace: 'calendar/events/v1', openapi: '/calendar/events/v1/doc' },
      graphql: '/graphql',
      database: h.config.databaseProvider,
      node: process.version,
    });
  });

  it('refuses other methods with 405 and Allow', async () => {
    for (const path of ['/version', '/healthz', '/readyz']) {
      const res = await h.http.post(path).send({}).expect(405);
      expect(res.headers.allow).toBe('GET');
      expect(res.body.code).toBe('rest_no_route');
    }
  });
});
