import { pino, type Logger } from 'pino';

/** JSON logs; credentials never reach them (the Authorization header is redacted). */
export function createLogger(level: string): Logger {
  return pino({
    level,
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', '*.password'],
      censor: '[redacted]',
    },
  });
}

export type { Logger };
