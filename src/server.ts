import { bootstrapAdministrator } from './auth/users.js';
import { loadConfig } from './config.js';
import { buildApp } from './app.js';
import { createDb } from './db/client.js';
import { migrateDatabase } from './db/migrate.js';
import { createLogger } from './logger.js';

const config = loadConfig();
const logger = createLogger(config.logLevel);
const { applied } = await migrateDatabase(config.databaseUrl);
if (applied.length) logger.info({ applied }, 'database migrated');
const db = await createDb(config.databaseUrl);
if (await bootstrapAdministrator(db, config.adminUser, config.adminPassword)) {
  logger.info({ login: config.adminUser }, 'created the first administrator from CALENDAR_ADMIN_USER');
}
const server = buildApp({ db, config, logger }).listen(config.port, config.host, () => {
  logger.info(
    { port: config.port, provider: config.databaseProvider },
    `listening on http://${config.host}:${config.port}`,
  );
});

async function shutdown(signal: string): Promise<void> {
  logger.info({ signal }, 'shutting down');
  server.close();
  await db.$disconnect();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
