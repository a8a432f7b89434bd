// The app server child of `npm run bench`: the compiled app (dist/, as `npm start` runs it, without a
// TypeScript loader holding transpiled sources in memory) on a free port. It counts SQL statements and
// answers the parent's questions (`sql`, `rss`, `reset`) over the IPC channel.
import { once } from 'node:events';
import process from 'node:process';
import { buildApp } from '../dist/src/app.js';
import { loadConfig } from '../dist/src/config.js';
import { createDb } from '../dist/src/db/client.js';
import { createLogger } from '../dist/src/logger.js';

const config = loadConfig(process.env);
let statements = 0;
const db = await createDb(config.databaseUrl, { onQuery: () => statements++ });
const server = buildApp({ db, config, logger: createLogger('silent') }).listen(0, '127.0.0.1');
await once(server, 'listening');
process.on('message', (question) => {
  if (question === 'reset') statements = 0;
  const answer = question === 'rss' ? process.resourceUsage().maxRSS : statements;
  process.send?.(answer);
});
process.send?.(server.address().port);
