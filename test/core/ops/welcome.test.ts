import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type WelcomeFacts, localOrigin, printWelcome, welcomeText } from '../../../src/users/welcome.js';
import { type Harness, startHarness } from '../../helpers/harness.js';

// The closing block of `npm run demo` (#30): on a terminal only, with the service's pages (each one
// answers) and how to get a login.

const FRESH: WelcomeFacts = {
  host: '0.0.0.0',
  port: 4000,
  graphiql: true,
  bootstrap: 'unset',
  administrators: 0,
  customDatabase: false,
};

function fakeStream(isTTY: boolean | undefined) {
  const written: string[] = [];
  return { stream: { isTTY, write: (text: string) => written.push(text) }, written };
}

describe('printWelcome', () => {
  it('prints the block on a terminal', () => {
    const { stream, written } = fakeStream(true);
    expect(printWelcome(stream, FRESH)).toBe(true);
    expect(written).toEqual([welcomeText(FRESH)]);
    expect(written[0]).toContain('GraphiQL');
  });

  it('prints nothing into a pipe or a file (no isTTY, or false)', () => {
    for (const isTTY of [undefined, false]) {
      const { stream, written } = fakeStream(isTTY);
      expect(printWelcome(stream, FRESH)).toBe(false);
      expect(written).toEqual([]);
    }
  });
});

describe('welcomeText', () => {
  it('lists the pages on the local address', () => {
    const text = welcomeText(FRESH);
    for (const url of [
      'http://localhost:4000/graphql',
      'http://localhost:4000/calendar/events/v1/events',
      'http://localhost:4000/calendar/events/v1/doc',
      'http://localhost:4000/calendar/events/v1/docs',
      'http://localhost:4000/calendar/events/v1/events.ics',
    ])
      expect(text).toContain(url);
    expect(localOrigin('127.0.0.1', 8080)).toBe('http://127.0.0.1:8080');
    expect(localOrigin('::1', 8080)).toBe('http://[::1]:8080');
    expect(localOrigin('::', 8080)).toBe('http://localhost:8080');
  });

  it('on a database without an administrator, gives the command that makes one', () => {
    expect(welcomeText(FRESH)).toContain('\n  npx calendar users create admin --role administrator\n');
    expect(welcomeText({ ...FRESH, customDatabase: true })).toContain(
      '\n  npx calendar users create admin --role administrator\n(run `npx calendar` with the DATABASE_URL this server was given)\n',
    );
    expect(welcomeText(FRESH)).not.toContain('DATABASE_URL');
  });

  it('names the administrator CALENDAR_ADMIN_USER made, and points at the warning when it made none', () => {
    const created = welcomeText({ ...FRESH, bootstrap: 'created', adminLogin: 'me', administrators: 1 });
    expect(created).toContain('log in as administrator "me" (CALENDAR_ADMIN_USER, created at this start)');
    expect(created).toContain('with the password in CALENDAR_ADMIN_PASSWORD');
    expect(created).not.toContain('users create');
    for (const bootstrap of ['other-role', 'other-password'] as const)
      expect(welcomeText({ ...FRESH, bootstrap, adminLogin: 'me', administrators: 1 })).toContain(
        '"me" already exists and was left as it is; see the warning above',
      );
    const existing = welcomeText({ ...FRESH, administrators: 2 });
    expect(existing).toContain('npx calendar users passwords add <login>');
    expect(existing).not.toContain('There is no administrator yet');
  });

  it('says when /graphql serves no GraphiQL (trusted documents)', () => {
    const text = welcomeText({ ...FRESH, graphiql: false });
    expect(text).not.toContain('GraphiQL');
    expect(text).toContain('GraphQL (trusted documents only)');
  });
});

describe('the pages it lists', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h?.close());

  it('each answers 200 with what its label says', async () => {
    const urls = welcomeText(FRESH).match(/http:\/\/localhost:4000\/\S*/g) ?? [];
    expect(urls).toHaveLength(5);
    const types: string[] = [];
    for (const url of urls) {
      const response = await h.http
        .get(new URL(url).pathname)
        .set('accept', 'text/html,application/json;q=0.9')
        .expect(200);
      types.push(String(response.headers['content-type']).split(';')[0]!);
    }
    // GraphiQL, the REST list, the OpenAPI document, Swagger UI, the iCalendar feed.
    expect(types).toEqual([
      'text/html',
      'application/json',
      'application/json',
      'text/html',
      'text/calendar',
    ]);
  });
});
