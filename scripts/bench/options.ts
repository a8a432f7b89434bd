// `npm run bench`'s command line (the list is at the top of bench.ts): read and checked before any work.

import { parseArgs } from 'node:util';
import { CACHE_MECHANISMS } from '../../src/core/config/cache-mechanisms.js';

export function options() {
  const { values } = parseArgs({
    options: {
      db: { type: 'string', default: 'sqlite' },
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '10' },
      events: { type: 'string', default: '10000' },
      warmup: { type: 'string', default: '2' },
      mix: { type: 'boolean', default: false },
      series: { type: 'string', default: '0' },
      profile: { type: 'string' },
      gzip: { type: 'boolean', default: false },
      peer: { type: 'boolean', default: false },
      'peer-rounds': { type: 'string', default: '3' },
      rsvp: { type: 'boolean', default: false },
      without: { type: 'string' },
      'mix-only': { type: 'boolean', default: false },
    },
  });
  if (values.db !== 'sqlite' && values.db !== 'postgres') throw new Error('--db must be sqlite or postgres');
  // The peer reads PostgreSQL only.
  if (values.peer && values.db !== 'postgres')
    throw new Error('--peer runs on PostgreSQL: add --db postgres');
  const numbers = Object.fromEntries(
    (['duration', 'connections', 'events', 'warmup', 'series', 'peer-rounds'] as const).map((key) => [
      key,
      Number(values[key]),
    ]),
  ) as Record<'duration' | 'connections' | 'events' | 'warmup' | 'series' | 'peer-rounds', number>;
  for (const [key, value] of Object.entries(numbers))
    if (!Number.isInteger(value) || value < 0) throw new Error(`--${key} must be a non-negative integer`);
  if (numbers.series > 100) throw new Error('--series is a percentage of the events (0 to 100)');
  if (values.profile !== undefined && !values.mix) throw new Error('--profile profiles the mix: add --mix');
  if (numbers['peer-rounds'] < 1) throw new Error('--peer-rounds must be at least 1');
  if (values.rsvp && (values.mix || values.peer || values.profile !== undefined))
    throw new Error('--rsvp runs the RSVP row alone: leave out --mix, --peer and --profile');
  if (numbers.connections < 1) throw new Error('--connections must be at least 1');
  const without = (values.without ?? '').split(',').filter(Boolean);
  for (const name of without)
    if (name !== 'none' && !(CACHE_MECHANISMS as readonly string[]).includes(name))
      throw new Error(`--without names the cache's mechanisms (${CACHE_MECHANISMS.join(', ')}) or none`);
  if ((without.length || values['mix-only']) && !values.mix)
    throw new Error('--without and --mix-only need --mix');
  const { 'peer-rounds': peerRounds, ...rest } = numbers;
  return {
    ...rest,
    peerRounds,
    db: values.db,
    mix: values.mix,
    profile: values.profile,
    gzip: values.gzip,
    peer: values.peer,
    rsvpOnly: values.rsvp,
    without,
    mixOnly: values['mix-only'],
  };
}
