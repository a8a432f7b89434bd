import { BlockList, isIP } from 'node:net';
import type Koa from 'koa';

// Who a request comes from (the login limits, the subscriptions per client): the socket's peer, unless
// that peer is one of our own proxies (CALENDAR_TRUSTED_PROXIES: addresses and CIDR ranges, none by
// default). X-Forwarded-For is then read from the right, as Express's proxy-addr reads it: each entry
// is the address the hop to its right saw, believed while that hop is a listed proxy; the first
// address that is not one is the client. Anything further left is whatever the client wrote. The
// other forwarded headers (X-Forwarded-Proto, X-Forwarded-Host) are believed from a listed peer only.

const CIDR = /^([^/]+)(?:\/(\d{1,3}))?$/;

/**
 * CALENDAR_TRUSTED_PROXIES as written (`10.0.0.0/8,127.0.0.1`; empty or `0`: none) → its entries;
 * throws naming the first entry that is neither an address nor a CIDR range.
 */
export function parseTrustedProxies(spec: string): string[] {
  const entries = spec
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length === 1 && entries[0] === '0') return [];
  proxyList(entries);
  return entries;
}

/** The listed proxies as a `BlockList` (undefined when none is listed). */
export function proxyList(entries: readonly string[]): BlockList | undefined {
  if (!entries.length) return undefined;
  const list = new BlockList();
  for (const entry of entries) {
    const [, address = '', prefix] = CIDR.exec(entry) ?? [];
    const family = isIP(address);
    const bits = prefix === undefined ? undefined : Number(prefix);
    if (bits === 0)
      throw new Error(`"${entry}" would believe every client's own X-Forwarded-For: list the proxies`);
    if (!family || (bits !== undefined && bits > (family === 4 ? 32 : 128))) {
      const hint = /^\d+$/.test(entry)
        ? ': a count of proxies is not accepted any more, list their addresses'
        : '';
      throw new Error(
        `"${entry}" is neither an address nor a CIDR range${hint} (such as 10.0.0.0/8,127.0.0.1; unset or 0: no proxy)`,
      );
    }
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, bits, type);
  }
  return list;
}

/**
 * One spelling per address: an IPv4 client of a dual-stack socket (`::ffff:192.0.2.1`) is its IPv4
 * address, and a port some proxies append (`192.0.2.1:5000`, `[2001:db8::1]:5000`) is dropped. Empty
 * when `text` is no address at all.
 */
function plainAddress(text: string): string {
  const trimmed = text.trim();
  const candidate =
    /^\[([^\]]+)\](?::\d+)?$/.exec(trimmed)?.[1] ??
    /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(trimmed)?.[1] ??
    trimmed;
  const address = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(candidate)?.[1] ?? candidate;
  return isIP(address) ? address : '';
}

/**
 * The client a limit counts (failed logins, subscriptions per client): its address, or for IPv6 its
 * /64, the smallest network one household or server is given, so rotating through it buys nothing.
 */
export function limitedClient(address: string): string {
  if (isIP(address) !== 6) return address;
  const [head = '', tail = ''] = address.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = address.includes('::')
    ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

const listed = (proxies: BlockList | undefined, address: string): boolean =>
  proxies !== undefined && address !== '' && proxies.check(address, isIP(address) === 4 ? 'ipv4' : 'ipv6');

/** The client behind a connection from `peer` that carries `forwardedFor` (X-Forwarded-For). */
export function clientAddress(
  peer: string | undefined,
  forwardedFor: string | undefined,
  proxies: BlockList | undefined,
): string {
  let address = plainAddress(peer ?? '');
  const hops = forwardedFor?.split(',') ?? [];
  for (let i = hops.length - 1; i >= 0 && listed(proxies, address); i--) {
    const hop = plainAddress(hops[i]!);
    // Not an address: the listed proxy that passed it on is the last hop known.
    if (!hop) break;
    address = hop;
  }
  return address;
}

/**
 * Makes `ctx.ip`, `ctx.protocol` and `ctx.host` of `app` follow the rule above. Koa's own `app.proxy`
 * believes forwarded headers from every peer or from none, so it stays off; these getters, defined on
 * the app's own request prototype, decide per connection instead.
 */
export function believeProxies(
  app: Koa,
  entries: readonly string[],
  /** Told once of the first peer that sends X-Forwarded-For without being listed (a proxy not named?). */
  onUnlistedForwarder: (peer: string) => void = () => {},
): void {
  app.proxy = false;
  const proxies = proxyList(entries);
  let unlistedTold = false;
  const koaHost = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(app.request), 'host')?.get;
  const addresses = new WeakMap<object, string>();
  const fromProxy = (request: Koa.Request) =>
    listed(proxies, plainAddress(request.socket.remoteAddress ?? ''));
  const firstOf = (value: string) => value.split(',', 1)[0]!.trim();
  Object.defineProperties(app.request, {
    ip: {
      configurable: true,
      get(this: Koa.Request): string {
        let address = addresses.get(this);
        if (address === undefined) {
          const forwardedFor = this.get('X-Forwarded-For') || undefined;
          address = clientAddress(this.socket.remoteAddress, forwardedFor, proxies);
          addresses.set(this, address);
          // Behind a proxy nobody listed, every client would count as the proxy: say so, once.
          if (forwardedFor && !unlistedTold && !fromProxy(this)) {
            unlistedTold = true;
            onUnlistedForwarder(plainAddress(this.socket.remoteAddress ?? ''));
          }
        }
        return address;
      },
      set(this: Koa.Request, address: string) {
        addresses.set(this, address);
      },
    },
    protocol: {
      configurable: true,
      get(this: Koa.Request): string {
        if ((this.socket as { encrypted?: boolean }).encrypted) return 'https';
        const forwarded = fromProxy(this) && this.get('X-Forwarded-Proto');
        return forwarded ? firstOf(forwarded).toLowerCase() : 'http';
      },
    },
    host: {
      configurable: true,
      get(this: Koa.Request): string {
        const forwarded = fromProxy(this) && this.get('X-Forwarded-Host');
        return forwarded ? firstOf(forwarded) : ((koaHost?.call(this) as string | undefined) ?? '');
      },
    },
  });
}
