import { pino, type Logger } from 'pino';

/** JSON logs; credentials never reach them (the Authorization and X-RSVP-Token headers are redacted). */
export function createLogger(level: string, destination: 'stdout' | 'stderr' = 'stdout'): Logger {
  const options = {
    level,
    redact: {
      paths: [
        'req.headers.authorization',
        'headers.authorization',
        'req.headers["x-rsvp-token"]',
        'headers["x-rsvp-token"]',
        '*.password',
      ],
      censor: '[redacted]',
    },
  };
  // Commands whose stdout is their answer (the `calendar` CLI prints passwords there) log to stderr.
  return destination === 'stderr' ? pino(options, pino.destination(2)) : pino(options);
}

export type { Logger };
