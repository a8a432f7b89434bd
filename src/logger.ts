import { pino, type Logger } from 'pino';

/** JSON logs; credentials never reach them (the Authorization header is redacted). */
export function createLogger(level: string, destination: 'stdout' | 'stderr' = 'stdout'): Logger {
  const options = {
    level,
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', '*.password'],
      censor: '[redacted]',
    },
  };
  // Commands whose stdout is their answer (the `calendar` CLI prints passwords there) log to stderr.
  return destination === 'stderr' ? pino(options, pino.destination(2)) : pino(options);
}

export type { Logger };
