import type { BootstrapOutcome } from './users.js';

// What a person who just ran `npm run demo` (or `npm start`) in a terminal needs next: where the pages
// are and how to get a login. Logs are JSON lines for machines; this block is for that person, so it
// is printed on a terminal only, never into a pipe or a log file.

export interface WelcomeFacts {
  /** The listener's host and port, as configured. */
  host: string;
  port: number;
  /** False under trusted documents: /graphql then serves no GraphiQL. */
  graphiql: boolean;
  /** What CALENDAR_ADMIN_USER / CALENDAR_ADMIN_PASSWORD did at this start. */
  bootstrap: BootstrapOutcome;
  adminLogin?: string;
  /** Administrators in the database now. */
  administrators: number;
  /** DATABASE_URL came from the environment (the CLI must be given the same one). */
  customDatabase: boolean;
}

/** The address to open from this machine: a wildcard listener is reached on localhost. */
export function localOrigin(host: string, port: number): string {
  const name = ['0.0.0.0', '::', ''].includes(host) ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}`;
}

const CLI = 'npx calendar';

export function welcomeText(facts: WelcomeFacts): string {
  const origin = localOrigin(facts.host, facts.port);
  const api = `${origin}/calendar/events/v1`;
  const pages: Array<[string, string]> = [
    [facts.graphiql ? 'GraphiQL' : 'GraphQL (trusted documents only)', `${origin}/graphql`],
    ['REST API', `${api}/events`],
    ['OpenAPI document', `${api}/doc`],
    ['Swagger UI', `${api}/docs`],
    ['iCalendar feed', `${api}/events.ics`],
  ];
  const width = Math.max(...pages.map(([label]) => label.length)) + 2;
  const lines = [
    '',
    `The calendar service is running at ${origin}`,
    ...pages.map(([label, url]) => `  ${label.padEnd(width)}${url}`),
    '',
    ...login(facts),
    'Ctrl-C stops it.',
    '',
  ];
  return lines.join('\n');
}

function login(facts: WelcomeFacts): string[] {
  const lines = loginLines(facts);
  // The CLI finds the database by DATABASE_URL as the server does; the URL may hold a password.
  if (facts.customDatabase && lines.some((line) => line.includes(CLI)))
    lines.push(`(run \`${CLI}\` with the DATABASE_URL this server was given)`);
  return lines;
}

function loginLines(facts: WelcomeFacts): string[] {
  const user = facts.adminLogin ?? '';
  switch (facts.bootstrap) {
    case 'created':
    case 'present':
      return [
        `Writes: log in as administrator "${user}" (CALENDAR_ADMIN_USER${facts.bootstrap === 'created' ? ', created at this start' : ''})`,
        'with the password in CALENDAR_ADMIN_PASSWORD, over HTTP Basic (REST and GraphQL alike).',
      ];
    case 'other-role':
    case 'other-password':
      return [
        `CALENDAR_ADMIN_USER: "${user}" already exists and was left as it is; see the warning above.`,
        'An administrator of another login (its password is printed once):',
        `  ${CLI} users create <login> --role administrator`,
      ];
    default:
      return facts.administrators === 0
        ? [
            'Public reads need no login; writes need an application password over HTTP Basic (REST and',
            'GraphQL alike). There is no administrator yet: make one (its password is printed once) with',
            `  ${CLI} users create admin --role administrator`,
          ]
        : [
            'Public reads need no login; writes need an application password over HTTP Basic:',
            `  ${CLI} users list; ${CLI} users passwords add <login>`,
          ];
  }
}

/** Prints the block when `out` is a terminal (npm run demo in a shell), not into a pipe or a file. */
export function printWelcome(
  out: { isTTY?: boolean; write(text: string): unknown },
  facts: WelcomeFacts,
): boolean {
  if (!out.isTTY) return false;
  out.write(welcomeText(facts));
  return true;
}
