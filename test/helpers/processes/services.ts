import { inject } from 'vitest';

// What test/helpers/processes/services-setup.ts provides: the local servers when they answer, else its own.
declare module 'vitest' {
  export interface ProvidedContext {
    /** A PostgreSQL server URL (its `postgres` database, or the run's own database on PostgreSQL). */
    postgresUrl: string;
    /** A Redis URL; other test files share it, so keys and channels need names of their own. */
    redisUrl: string;
  }
}

export const testPostgresUrl = (): string => inject('postgresUrl');
export const testRedisUrl = (): string => inject('redisUrl');
