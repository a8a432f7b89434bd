import Koa from 'koa';
import supertest from 'supertest';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/core/config/config.js';
import {
  believeProxies,
  clientAddress,
  limitedClient,
  proxyList,
} from '../../src/core/config/client-address.js';

// Who a request comes from (#50 point 8): the socket's peer, unless it is a proxy listed in
// CALENDAR_TRUSTED_PROXIES (none by default); X-Forwarded-For is then walked from the right past the
// listed proxies. The login limits counting by it are in test/security/logins.test.ts.

const proxies = proxyList(['10.0.0.0/8', '127.0.0.1', 'fd00::/8'])!;

describe('CALENDAR_TRUSTED_PROXIES', () => {
  const refusal = (spec: string): string => {
    try {
      loadConfig({ CALENDAR_TRUSTED_PROXIES: spec });
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
    throw new Error('accepted');
  };

  it('lists none by default, or when set empty or to 0', () => {
    for (const env of [{}, { CALENDAR_TRUSTED_PROXIES: '' }, { CALENDAR_TRUSTED_PROXIES: '0' }])
      expect(loadConfig(env).trustedProxies).toEqual([]);
  });

  it('takes addresses and CIDR ranges of both families, comma-separated', () => {
    expect(
      loadConfig({ CALENDAR_TRUSTED_PROXIES: ' 10.0.0.0/8, 127.0.0.1,::1 ,fd00::/8' }).trustedProxies,
    ).toEqual(['10.0.0.0/8', '127.0.0.1', '::1', 'fd00::/8']);
  });

  it.each([
    [
      'the former count of proxies',
      '1',
      /"1" is neither an address nor a CIDR range: a count of proxies is not accepted any more/,
    ],
    ['a prefix out of range', '10.0.0.0/33', /"10\.0\.0\.0\/33" is neither/],
    ['an IPv6 prefix out of range', 'fd00::/129', /"fd00::\/129" is neither/],
    ['a host name', '127.0.0.1,localhost', /"localhost" is neither/],
    ['a malformed range', '10.0.0.0/8/1', /"10\.0\.0\.0\/8\/1" is neither/],
    ['every IPv4 client', '0.0.0.0/0', /"0\.0\.0\.0\/0" would believe every client/],
    ['every IPv6 client', '10.0.0.0/8,::/0', /"::\/0" would believe every client/],
  ])('refuses %s, naming the variable and the entry', (_, spec, why) => {
    const message = refusal(spec);
    expect(message).toMatch(/CALENDAR_TRUSTED_PROXIES: /);
    expect(message).toMatch(why);
  });
});

describe('the client address', () => {
  it.each([
    ['a peer that is no proxy: the header is ignored', '203.0.113.9', '198.51.100.1', '203.0.113.9'],
    ['a listed proxy: the entry it added', '10.0.0.2', '198.51.100.1', '198.51.100.1'],
    ['a listed proxy without the header: the proxy', '10.0.0.2', undefined, '10.0.0.2'],
    [
      'entries left of the first address that is no proxy are the client’s own',
      '10.0.0.2',
      '192.0.2.66, 198.51.100.1',
      '198.51.100.1',
    ],
    [
      'a chain of listed proxies is walked from the right',
      '127.0.0.1',
      '192.0.2.66, 198.51.100.1, 10.9.9.9',
      '198.51.100.1',
    ],
    ['every hop a listed proxy: the farthest', '10.0.0.2', '10.0.0.3, 10.0.0.4', '10.0.0.3'],
    [
      'an entry that is no address ends the walk at the proxy that passed it',
      '10.0.0.2',
      'unknown',
      '10.0.0.2',
    ],
    [
      'an IPv4 peer of a dual-stack socket is its IPv4 address',
      '::ffff:203.0.113.9',
      '198.51.100.1',
      '203.0.113.9',
    ],
    ['a mapped proxy address is listed by its IPv4 range', '::ffff:10.0.0.2', '198.51.100.1', '198.51.100.1'],
    ['ports some proxies append are dropped', '10.0.0.2', '198.51.100.1:5123', '198.51.100.1'],
    ['an IPv6 entry in brackets with a port', 'fd00::5', '[2001:db8::7]:443', '2001:db8::7'],
  ])('%s', (_, peer, forwardedFor, expected) => {
    expect(clientAddress(peer, forwardedFor, proxies)).toBe(expected);
  });

  it('is the peer whatever the header says when no proxy is listed', () => {
    expect(clientAddress('10.0.0.2', '198.51.100.1', undefined)).toBe('10.0.0.2');
    expect(clientAddress('::ffff:10.0.0.2', undefined, undefined)).toBe('10.0.0.2');
  });
});

describe('the client a limit counts', () => {
  it.each([
    ['an IPv4 address, itself', '192.0.2.1', '192.0.2.1'],
    ['an IPv6 address, its /64', '2001:db8:a:b:c:d:e:f', '2001:db8:a:b::/64'],
    ['the same /64 compressed', '2001:db8:a:b::1', '2001:db8:a:b::/64'],
    ['zeros spelled out', '2001:0db8:0000:000b:0::1', '2001:db8:0:b::/64'],
    ['a short prefix', '2001:db8::1', '2001:db8:0:0::/64'],
    ['the loopback', '::1', '0:0:0:0::/64'],
  ])('%s', (_, address, client) => expect(limitedClient(address)).toBe(client));
});

describe('a Koa app that believes its proxies', () => {
  /** What the app makes of a request sent from the loopback (supertest's socket peer). */
  async function seen(entries: string[], headers: Record<string, string>) {
    const app = new Koa();
    believeProxies(app, entries);
    app.use((ctx) => {
      ctx.body = { ip: ctx.ip, protocol: ctx.protocol, host: ctx.host };
    });
    const request = supertest(app.callback()).get('/').set('Host', 'calendar.test');
    for (const [name, value] of Object.entries(headers)) request.set(name, value);
    return (await request.expect(200)).body as { ip: string; protocol: string; host: string };
  }
  const forged = {
    'X-Forwarded-For': '192.0.2.66',
    'X-Forwarded-Proto': 'https',
    'X-Forwarded-Host': 'elsewhere.example',
  };

  it('believes no forwarded header from a peer that is no listed proxy', async () => {
    for (const entries of [[], ['10.0.0.0/8']])
      expect(await seen(entries, forged)).toEqual({
        ip: '127.0.0.1',
        protocol: 'http',
        host: 'calendar.test',
      });
  });

  it('says once that a peer nobody listed sends X-Forwarded-For', async () => {
    const told: string[] = [];
    const app = new Koa();
    believeProxies(app, ['10.0.0.0/8'], (peer) => told.push(peer));
    app.use((ctx) => {
      ctx.body = ctx.ip;
    });
    const http = supertest(app.callback());
    await http.get('/').expect(200);
    expect(told).toEqual([]);
    for (let i = 0; i < 3; i++) await http.get('/').set('X-Forwarded-For', '192.0.2.66').expect(200);
    expect(told).toHaveLength(1);
    expect(told[0]).toMatch(/^(127\.0\.0\.1|::1)$/);
  });

  it('believes them from a listed proxy', async () => {
    expect(await seen(['127.0.0.1', '::1'], forged)).toEqual({
      ip: '192.0.2.66',
      protocol: 'https',
      host: 'elsewhere.example',
    });
    expect(await seen(['127.0.0.1', '::1'], {})).toEqual({
      ip: '127.0.0.1',
      protocol: 'http',
      host: 'calendar.test',
    });
  });
});
