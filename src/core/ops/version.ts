import { readFileSync } from 'node:fs';

const manifest = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
  name: string;
  version: string;
};

/** The service's name and version, from package.json (read once). */
export const SERVICE = { name: manifest.name, version: manifest.version } as const;
