import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Viewer } from '../../src/domain/permissions.js';
import type { Batch, Reader } from '../../src/services/import/records.js';
import type { Scope } from '../../src/services/scope.js';
import type { Harness } from '../helpers/harness.js';

/** The importing side: an administrator writing into the harness's database. */
export function importScope(h: Pick<Harness, 'db' | 'config' | 'writes'>): Scope {
  const viewer: Viewer = { userId: null, login: 'importer', role: 'administrator' };
  return { db: h.db, config: h.config, writes: h.writes, viewer };
}

/** Serves the app on a free local port; the address of its TEC API. */
export async function serve(h: Harness): Promise<{ root: string; server: Server }> {
  const server = h.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return { root: `http://127.0.0.1:${port}/calendar/events/v1`, server };
}

/** A reader that dies after handing over `batches` batches, as a killed process would stop. */
export function killedAfter(reader: Reader, batches: number): Reader {
  return {
    source: reader.source,
    async *read(after: string | null): AsyncIterable<Batch> {
      let handed = 0;
      for await (const batch of reader.read(after)) {
        yield batch;
        if (++handed === batches) throw new Error('killed');
      }
    },
  };
}
