import type { Scope } from '../core/context/context.js';
import type { Viewer } from '../core/rules/permissions.js';
import {
  SUMMARY_EVENT_TYPES,
  WEBHOOK_EVENT_TYPES,
  addWebhookEndpoint,
  listWebhookEndpoints,
  removeWebhookEndpoint,
  setWebhookEndpointEnabled,
  webhookDeliveries,
} from '../sync/webhooks.js';
import { Command, CommanderError, Option } from 'commander';
import { ConfigError, loadConfig } from '../core/config/config.js';
import { createDb } from '../core/db/client.js';
import { recordChanges } from '../sync/change-log.js';
import { WritePipeline } from '../core/db/transactions.js';
import { announceInvalidation } from '../core/cache/invalidation-channel.js';
import { calendarNamespace } from '../core/db/calendar-identity.js';
import { createLogger } from '../core/ops/logger.js';
import { migrateDatabase } from '../core/db/migrate.js';
import { ROLES } from '../core/rules/permissions.js';
import { isApiError } from '../core/errors/errors.js';
import {
  type UserAdmin,
  UserAdminError,
  addPasswordFor,
  createUser,
  deleteUser,
  listUsers,
  revokePasswords,
} from '../users/users.js';

// `calendar users ...`: user and application-password administration against DATABASE_URL.
// New passwords are printed alone on the last line of stdout, so scripts can `| tail -n 1`.

async function withDb<T>(run: (admin: UserAdmin) => Promise<T>): Promise<T> {
  const config = loadConfig();
  await migrateDatabase(config.databaseUrl);
  const db = await createDb(config.databaseUrl);
  try {
    const writes = new WritePipeline();
    recordChanges(writes, config);
    // The servers' caches did not see this process write: tell them over their channel, named by the
    // database they share.
    const logger = createLogger(config.logLevel, 'stderr');
    const namespace = await calendarNamespace(db);
    writes.afterCommit(async () => {
      await announceInvalidation({ ...config, namespace }, logger);
    });
    return await run({ db, config, writes });
  } finally {
    await db.$disconnect();
  }
}

const program = new Command('calendar')
  .description('Administer the calendar service (uses DATABASE_URL, default ./data/calendar.db)')
  .exitOverride();

const users = program.command('users').description('Users and their application passwords');

users
  .command('create <login>')
  .description('Create a user and print a new application password (shown once)')
  .addOption(new Option('--role <role>', 'WordPress role').choices(ROLES).makeOptionMandatory())
  .option('--email <email>', 'e-mail address')
  .option('--name <displayName>', 'display name (default: the login)')
  .action(async (login: string, options: { role: string; email?: string; name?: string }) => {
    const created = await withDb((admin) =>
      createUser(admin, { login, role: options.role, email: options.email, displayName: options.name }),
    );
    console.log(
      `Created ${options.role} "${login}" (id ${created.user.id}). Application password (shown once):`,
    );
    console.log(created.password);
  });

users
  .command('list')
  .description('List users with their role and active application passwords')
  .action(async () => {
    const rows = await withDb((admin) => listUsers(admin.db));
    if (rows.length === 0) return console.log('No users.');
    console.table(rows.map((row) => ({ ...row, lastUsedAt: row.lastUsedAt?.toISOString() ?? 'never' })));
  });

users
  .command('passwords')
  .description('Application passwords of a user')
  .command('add <login>')
  .description('Add an application password and print it (shown once)')
  .option('--name <name>', 'a label to recognise it by', 'cli')
  .action(async (login: string, options: { name: string }) => {
    const added = await withDb((admin) => addPasswordFor(admin, login, options.name));
    console.log(`Added application password ${added.id} ("${added.name}") for "${login}" (shown once):`);
    console.log(added.password);
  });

users
  .command('revoke <login>')
  .description("Revoke the user's application passwords (all, or one with --password-id)")
  .option('--password-id <id>', 'revoke only this one', (value) => Number.parseInt(value, 10))
  .action(async (login: string, options: { passwordId?: number }) => {
    const count = await withDb((admin) => revokePasswords(admin, login, options.passwordId));
    console.log(`Revoked ${count} application password(s) of "${login}".`);
  });

users
  .command('delete <login>')
  .description(
    'Delete a user. Their events, venues, organizers and media are kept and moved to --reassign; ' +
      'without --reassign the command refuses if the user owns any.',
  )
  .option('--reassign <login>', 'the user who takes over their records')
  .action(async (login: string, options: { reassign?: string }) => {
    const { reassigned } = await withDb((admin) => deleteUser(admin, login, options.reassign));
    console.log(
      `Deleted "${login}"${reassigned ? `; ${reassigned} record(s) now belong to "${options.reassign}"` : ''}.`,
    );
  });

// `calendar webhooks ...`: the same administration as the GraphQL mutations, as an administrator.
const CLI_ADMINISTRATOR: Viewer = { userId: null, login: 'calendar-cli', role: 'administrator' };
const webhooks = program.command('webhooks').description('Webhook endpoints and their deliveries');
const asAdministrator = (admin: UserAdmin): Scope => ({ ...admin, viewer: CLI_ADMINISTRATOR });

webhooks
  .command('add <url>')
  .description('Register an endpoint for the changes committed from now on; prints its secret (shown once)')
  .requiredOption(
    '--events <types>',
    `comma list: *, <type>.*, or of ${[...WEBHOOK_EVENT_TYPES, ...SUMMARY_EVENT_TYPES].join(', ')}`,
  )
  .option('--description <text>', 'a note on what it is for')
  .option('--personal-data', "attendee deliveries carry the attendee's name, e-mail and (on creation) token")
  .action(async (url: string, options: { events: string; description?: string; personalData?: boolean }) => {
    const { endpoint, secret } = await withDb((admin) =>
      addWebhookEndpoint(asAdministrator(admin), {
        url,
        events: [options.events],
        description: options.description,
        personalData: options.personalData === true,
      }),
    );
    console.log(
      `Added webhook endpoint ${endpoint.id} → ${endpoint.url} (${endpoint.events}). Secret (shown once):`,
    );
    console.log(secret);
  });

webhooks
  .command('list')
  .description('List the endpoints with their state')
  .action(async () => {
    const rows = await withDb((admin) => listWebhookEndpoints(asAdministrator(admin)));
    if (rows.length === 0) return console.log('No webhook endpoints.');
    console.table(
      rows.map((row) => ({
        id: row.id,
        url: row.url,
        events: row.events,
        enabled: row.enabled,
        failures: row.failures,
        cursor: row.cursor,
        disabledReason: row.disabledReason ?? '',
      })),
    );
  });

webhooks
  .command('deliveries <id>')
  .description("An endpoint's latest delivery attempts, newest first")
  .option('--limit <n>', 'how many', (value) => Number.parseInt(value, 10), 20)
  .action(async (id: string, options: { limit: number }) => {
    const rows = await withDb((admin) =>
      webhookDeliveries(asAdministrator(admin), Number(id), options.limit),
    );
    if (rows.length === 0) return console.log('No deliveries yet.');
    console.table(
      rows.map((row) => ({
        at: row.createdAt.toISOString(),
        message: row.messageId,
        event: row.eventType,
        attempt: row.attempt,
        ok: row.succeeded,
        status: row.status ?? '',
        ms: row.durationMs,
        error: row.error ?? '',
      })),
    );
  });

webhooks
  .command('remove <id>')
  .description('Delete an endpoint (and its delivery log)')
  .action(async (id: string) => {
    const removed = await withDb((admin) => removeWebhookEndpoint(asAdministrator(admin), Number(id)));
    console.log(`Removed webhook endpoint ${removed.id} (${removed.url}).`);
  });

for (const [command, enabled] of [
  ['enable', true],
  ['disable', false],
] as const) {
  webhooks
    .command(`${command} <id>`)
    .description(
      enabled
        ? 'Enable an endpoint again (failures reset, retried at once)'
        : 'Stop deliveries to an endpoint',
    )
    .action(async (id: string) => {
      const endpoint = await withDb((admin) =>
        setWebhookEndpointEnabled(asAdministrator(admin), Number(id), enabled),
      );
      console.log(`Webhook endpoint ${endpoint.id} ${endpoint.enabled ? 'enabled' : 'disabled'}.`);
    });
}

// `calendar import ...`: the same writes as the APIs', as an administrator. Its subcommands and their
// readers (node-ical, the CSV parser) are loaded only when asked for: every other command starts a
// fifth faster without them.
const importCommand = program
  .command('import')
  .description('Import a The Events Calendar site, an iCalendar feed or a CSV file (docs/guide/import.md)');
if (process.argv[2] === 'import') {
  const { registerImportCommands } = await import('./import.js');
  registerImportCommands(importCommand, (work) => withDb((admin) => work(asAdministrator(admin))));
}

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) process.exitCode = error.exitCode;
  else if (error instanceof UserAdminError || error instanceof ConfigError || isApiError(error)) {
    const params = isApiError(error) ? error.data.params : undefined;
    const reasons =
      params && typeof params === 'object' && !Array.isArray(params)
        ? ` (${Object.entries(params as Record<string, string>)
            .map(([name, reason]) => `${name}: ${reason}`)
            .join('; ')})`
        : '';
    console.error(`calendar: ${error.message}${reasons}`);
    process.exitCode = 1;
  } else {
    console.error('calendar: unexpected failure:', error instanceof Error ? error.message : error);
    process.exitCode = 2;
  }
}
