/**
 * Lets other requests run before going on. SQLite answers synchronously, so a chain of queries never
 * gives the event loop a turn by itself: long reads and renders are cut into steps around this.
 */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
