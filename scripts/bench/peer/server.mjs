// The peer of `npm run bench -- --peer`: PostGraphile 5 (Amber preset, many-to-many and filter
// plugins) over the bench's PostgreSQL database, on a free port of 127.0.0.1, under Node >= 22.
// scripts/bench/bench.ts copies this file into the peer's install folder (its packages resolve from there,
// never from the service's node_modules) and forks it with that Node. As scripts/bench/server.mjs, it
// sends its port, then answers the parent's questions over the IPC channel: `sql` (statements since
// `reset`), `cpu` (user + system CPU, µs), `rss` (peak, KB).
import { once } from 'node:events';
import { createServer } from 'node:http';
import process from 'node:process';
import { PgManyToManyPreset } from '@graphile-contrib/pg-many-to-many';
import pg from 'pg';
import { postgraphile } from 'postgraphile';
import { makePgService } from 'postgraphile/adaptors/pg';
import { grafserv } from 'postgraphile/grafserv/node';
import { PostGraphileAmberPreset } from 'postgraphile/presets/amber';
import { PostGraphileConnectionFilterPreset } from 'postgraphile-plugin-connection-filter';

const connectionString = process.env.DATABASE_URL;
if (!connectionString?.startsWith('postgres'))
  throw new Error('DATABASE_URL must name a PostgreSQL database');

// Every statement goes through a client of this pool (the pool's own `query` included).
let statements = 0;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (...args) {
  statements++;
  return query.apply(this, args);
};

/** @type {GraphileConfig.Preset} */
const preset = {
  extends: [PostGraphileAmberPreset, PgManyToManyPreset, PostGraphileConnectionFilterPreset],
  pgServices: [
    makePgService({
      // As many connections as the service's pool (src/core/db/client.ts).
      pool: new pg.Pool({ connectionString, max: 10 }),
      schemas: ['public'],
      // No LISTEN connection: nothing here subscribes or watches the schema.
      pubsub: false,
    }),
  ],
  grafserv: { graphqlPath: '/graphql', graphiql: false, websockets: false, watch: false },
  grafast: { explain: false },
};

const pgl = postgraphile(preset);
const server = createServer();
await pgl.createServ(grafserv).addTo(server);
server.listen(0, '127.0.0.1');
await once(server, 'listening');

const answers = {
  sql: () => statements,
  reset: () => (statements = 0),
  cpu: () => {
    const { user, system } = process.cpuUsage();
    return user + system;
  },
  rss: () => process.resourceUsage().maxRSS,
};
process.on('message', ([id, question]) => {
  process.send?.([id, answers[question]?.() ?? null]);
});
process.send?.(server.address().port);
