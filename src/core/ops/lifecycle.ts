/**
 * What an instance knows about its own state for the load balancer: whether it is draining, and which
 * dependencies must answer before it takes traffic. Closers run once, in reverse order of registration,
 * when the process shuts down.
 */
type ReadinessCheck = () => Promise<void>;

export class Lifecycle {
  private draining = false;
  private readonly checks = new Map<string, ReadinessCheck>();
  private readonly closers: Array<{ name: string; close: () => Promise<void> | void }> = [];
  private readonly drainers: Array<() => void> = [];

  get isDraining(): boolean {
    return this.draining;
  }

  /** A dependency `/readyz` asks on every probe; it throws (or times out) when not ready. */
  addReadinessCheck(name: string, check: ReadinessCheck): void {
    this.checks.set(name, check);
  }

  readinessChecks(): ReadonlyMap<string, ReadinessCheck> {
    return this.checks;
  }

  /** A resource to release at shutdown (Redis clients, subscriptions, the database). */
  onClose(name: string, close: () => Promise<void> | void): void {
    this.closers.push({ name, close });
  }

  /** Told when draining begins: long-lived responses (subscription streams) end so the listener can close. */
  onDrain(listener: () => void): void {
    this.drainers.push(listener);
  }

  /** From here on `/readyz` answers 503 so that the balancer stops sending requests. */
  beginDraining(): void {
    if (this.draining) return;
    this.draining = true;
    for (const listener of this.drainers) listener();
  }

  async close(onError: (name: string, error: unknown) => void): Promise<void> {
    for (const { name, close } of [...this.closers].reverse()) {
      try {
        await close();
      } catch (error) {
        onError(name, error);
      }
    }
    this.closers.length = 0;
  }
}

/** Rejects when `promise` has not settled within `ms`. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
