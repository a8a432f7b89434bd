import { bootstrapAdministrator } from './auth/users.js';
import { loadConfig } from './config.js';
import { buildApp } from './app.js';
import { createDb } from './db/client.js';
import { migrateDatabase } from './db/migrate.js';
import { createLogger } from './logger.js';
import { WritePipeline } from './services/transactions.js';

const config = loadConfig();
const logger = createLogger(config.logLevel);
const { applied } = await migrateDatabase(config.databaseUrl);
if (applied.length) logger.info({ applied }, 'database migrated');
const db = await createDb(config.databaseUrl);
const writes = new WritePipeline({
  onListenerError: (error) => logger.error({ err: error }, 'after-commit listener failed'),
});
if (await bootstrapAdministrator({ db, config, writes }, config.adminUser, config.adminPassword)) {
  logger.info({ login: config.adminUser }, 'created the first administrator from CALENDAR_ADMIN_USER');
}
const server = buildApp({ db, config, logger, writes }).listen(config.port, config.host, () => {
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
