import { groupLabel } from '../../core/db/write-groups.js';

/** The kind of a series write's group (`core/db/write-groups.ts`); webhooks summarise it. */
export const SERIES_GROUP = 'series';

/** The group of a series write: every change of an edit of the series whose first event is `firstId`. */
export const seriesGroup = (firstId: number) => groupLabel(SERIES_GROUP, firstId);
