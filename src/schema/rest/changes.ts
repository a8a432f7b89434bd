import { type SubGraph, builder } from '../builder.js';
import { TecEvent } from './event.js';
import { presentOrganizer, presentVenue } from './present.js';
import { TecCategory, TecTag } from './term.js';
import { SHAPES, jsonShape } from '../../rest/tec-schemas.js';
import {
  type ChangePage,
  SYNC_PAGE_DEFAULT,
  SYNC_PAGE_MAX,
  readChanges,
} from '../../services/sync/change-log.js';
import { visibleEvents } from '../../services/events/event-access.js';
import { WITH_IMAGE, type WithImage, visibleLinked } from '../../services/linked-posts/linked-access.js';
import { visibleTerms } from '../../services/terms/term-reads.js';
import { CATEGORY, TAG } from '../../services/terms/terms.js';

// `GET /changes?since=<token>`: the REST form of GraphQL `changes(since:)`, each record in the
// representation its own list route gives it.

const REST: { subGraphs: SubGraph[] } = { subGraphs: ['rest'] };

const TecChanges = builder.objectRef<ChangePage>('TecChanges').implement({
  ...REST,
  fields: (t) => ({
    events: t.prismaField({
      type: [TecEvent],
      resolve: (query, page, _a, ctx) => visibleEvents(ctx, page.changed.event, query),
    }),
    venues: t.field({
      type: ['JSON'],
      extensions: jsonShape('TecVenue'),
      resolve: async (page, _a, ctx) =>
        (await visibleLinked<'venue', WithImage<'venue'>>(ctx, 'venue', page.changed.venue, WITH_IMAGE)).map(
          (venue) => presentVenue(venue, ctx.urls, ctx.config.siteTimezone, 'list', ctx.viewer),
        ),
    }),
    organizers: t.field({
      type: ['JSON'],
      extensions: jsonShape('TecOrganizer'),
      resolve: async (page, _a, ctx) =>
        (
          await visibleLinked<'organizer', WithImage<'organizer'>>(
            ctx,
            'organizer',
            page.changed.organizer,
            WITH_IMAGE,
          )
        ).map((organizer) =>
          presentOrganizer(organizer, ctx.urls, ctx.config.siteTimezone, 'list', ctx.viewer),
        ),
    }),
    categories: t.prismaField({
      type: [TecCategory],
      resolve: (query, page, _a, ctx) => visibleTerms(ctx, page.changed.category, query, CATEGORY),
    }),
    tags: t.prismaField({
      type: [TecTag],
      resolve: (query, page, _a, ctx) => visibleTerms(ctx, page.changed.tag, query, TAG),
    }),
    deleted: t.field({
      type: 'JSON',
      extensions: jsonShape(SHAPES.changesDeleted),
      description: 'Ids to forget per type: deleted, trashed or no longer readable by the viewer',
      resolve: ({ deleted }) => ({
        events: deleted.event,
        venues: deleted.venue,
        organizers: deleted.organizer,
        categories: deleted.category,
        tags: deleted.tag,
      }),
    }),
    next: t.string({ resolve: (page) => page.next }),
    has_more: t.boolean({ resolve: (page) => page.hasMore }),
  }),
});

builder.queryField('tecChanges', (t) =>
  t.field({
    ...REST,
    type: TecChanges,
    args: {
      since: t.arg.string({
        description: 'The sync token of the previous answer (`next`); without it, a token for now',
      }),
      per_page: t.arg.int({
        description: `The number of changes to return on each page (at most ${SYNC_PAGE_MAX})`,
        defaultValue: SYNC_PAGE_DEFAULT,
      }),
    },
    resolve: (_root, { since, per_page }, ctx) =>
      readChanges(ctx.db, ctx.viewer, ctx.config, since, per_page ?? SYNC_PAGE_DEFAULT),
  }),
);
