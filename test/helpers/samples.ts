import { readFileSync } from 'node:fs';
import { expect } from 'vitest';

/**
 * A recorded response of the reference (`../shared/spec/tec-samples/`). An error body gains the one
 * key ours adds to WordPress's `data` — `request_id`, the id of the request in our logs.
 */
export function sample(name: string) {
  const body = JSON.parse(
    readFileSync(new URL(`../../../shared/spec/tec-samples/${name}`, import.meta.url), 'utf8'),
  );
  const isError = typeof body?.code === 'string' && typeof body?.data?.status === 'number';
  return isError ? { ...body, data: { ...body.data, request_id: expect.any(String) } } : body;
}
