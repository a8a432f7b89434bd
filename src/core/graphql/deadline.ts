// A GraphQL request's deadline (GRAPHQL_TIMEOUT_MS), kept on its context: past it, every resolver
// still to run fails at once (`limits.ts`), so a slow request ends instead of running on unseen.
// Except after a write began: its result is what the client needs (a reservation's token is shown
// only in its answer), so the rest of the request is answered whatever the time. A write that waits
// for its turn asks `requestDeadline` first and does not begin past it.

interface DeadlineContext {
  graphqlDeadline?: number;
  /** A write of this request began: its answer is given whatever the time. */
  graphqlWriteBegun?: boolean;
}

/** The context's part that holds the deadline of a request starting now. */
export const deadlineIn = (timeoutMs: number): DeadlineContext => ({
  graphqlDeadline: Date.now() + timeoutMs,
});

/** When the GraphQL request of `context` must have ended (undefined: no deadline, e.g. a REST request). */
export const requestDeadline = (context: object): number | undefined =>
  (context as DeadlineContext).graphqlDeadline;

/** Whether the request's remaining resolvers must fail now. */
export function pastDeadline(context: object, now = Date.now()): boolean {
  const { graphqlDeadline, graphqlWriteBegun } = context as DeadlineContext;
  return !graphqlWriteBegun && graphqlDeadline !== undefined && now > graphqlDeadline;
}

/** A write of this request began: the request is answered from here on whatever the time. */
export function writeBegun(context: object): void {
  (context as DeadlineContext).graphqlWriteBegun = true;
}
