import type { ServerResponse } from 'node:http';

// A kept body handed to a socket or to the thread pool is still read after the call that passed it
// returns: a slow client's unsent rest stays in libuv's write queue, a deflate runs aside. A count
// refresh may rewrite a kept body in place (no new memory, nothing for the collector) only while no one
// holds it; otherwise it writes a new one, as before.

/** How many holders each lent body has now. */
const holders = new WeakMap<Buffer, number>();

/** `body` is read until `response` closes (sent in full, or its connection gone). */
export function lendToResponse(body: Buffer, response: ServerResponse): void {
  take(body);
  response.once('close', () => giveBack(body));
}

/** `body` is read until `work` settles. */
export function lendUntil<T>(body: Buffer, work: Promise<T>): Promise<T> {
  take(body);
  return work.finally(() => giveBack(body));
}

/** Whether anyone may still read `body`'s memory. */
export function isLent(body: Buffer): boolean {
  return holders.has(body);
}

function take(body: Buffer): void {
  holders.set(body, (holders.get(body) ?? 0) + 1);
}

function giveBack(body: Buffer): void {
  const left = (holders.get(body) ?? 1) - 1;
  if (left > 0) holders.set(body, left);
  else holders.delete(body);
}
