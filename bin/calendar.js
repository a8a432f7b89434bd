#!/usr/bin/env node
// The CLI is TypeScript; tsx runs it without a build step (as `npm start` does).
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/calendar.ts');
