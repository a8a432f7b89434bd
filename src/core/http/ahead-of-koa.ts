import type { IncomingMessage, ServerResponse } from 'node:http';
import type Koa from 'koa';

/** Answers a request by itself (true), hands it on (false), or says so once it has read its body. */
type RawHandler = (req: IncomingMessage, res: ServerResponse) => boolean | Promise<boolean>;

/**
 * Puts `first` in front of the app's request handler, before Koa builds its context: what it answers
 * never reaches Koa (the cache's plainest hits, src/core/cache/fast-path.ts).
 */
export function answerAheadOfKoa(app: Koa, first: RawHandler): void {
  const koaCallback = app.callback.bind(app);
  app.callback = () => {
    const handle = koaCallback();
    return (req, res) => {
      // The service listens with node:http (Koa's type also admits HTTP/2's request).
      const answered = first(req as IncomingMessage, res as ServerResponse);
      if (answered === true) return Promise.resolve();
      if (answered === false) return handle(req, res);
      return answered.then((done) => (done ? undefined : handle(req, res)));
    };
  };
}
