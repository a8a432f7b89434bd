// Record ids are 32-bit signed integers in both databases (and GraphQL's Int): a larger number can
// only be a bad id, refused at the boundary rather than sent to the database.

export const MAX_RECORD_ID = 2_147_483_647;

/** Whether `value` is a possible record id: a positive integer within the column's range. */
export function isRecordId(value: number): boolean {
  return Number.isInteger(value) && value > 0 && value <= MAX_RECORD_ID;
}

/** These records in the order of `ids`, those missing left out. */
export function inIdOrder<T extends { id: number }>(ids: readonly number[], rows: Iterable<T>): T[] {
  const byId = new Map<number, T>();
  for (const row of rows) byId.set(row.id, row);
  return ids.flatMap((id) => byId.get(id) ?? []);
}
