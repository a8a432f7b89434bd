import { type SubGraph, builder } from '../builder.js';
import { TecEvent } from './event.js';
import { presentOrganizer, presentVenue } from './present.js';
import { TecCategory, TecTag } from './term.js';
import { SHAPES, jsonShape } from '../../rest/tec-schemas.js';
import { judged } from '../../domain/visibility.js';
import {
  type ChangePage,
  SYNC_PAGE_DEFAULT,
  SYNC_PAGE_MAX,
  inOrder,
  readChanges,
  visibleWhere,
} from '../../services/sync/change-log.js';

// `GET /changes?since=<token>`: the REST form of GraphQL `changes(since:)`, each record in the
// representation its own list route gives it.

const REST: { subGraphs: SubGraph[] } = { subGraphs: ['rest'] };

const TecChanges = builder.objectRef<ChangePage>('TecChanges').implement({
  ...REST,
  fields: (t) => ({
    events: t.prismaField({
      type: [TecEvent],
      resolve: async (query, page, _a, ctx) =>
        inOrder(
          page.changed.event,
          await ctx.db.event.findMany({
            ...query,
            where: visibleWhere('event', page.changed.event, ctx.viewer),
          }),
        ).map((event) => judged(event, ctx.viewer)),
    }),
    venues: t.field({
      type: ['JSON'],
      extensions: jsonShape('TecVenue'),
      resolve: async (page, _a, ctx) =>
        inOrder(
          page.changed.venue,
          await ctx.db.venue.findMany({
            where: visibleWhere('venue', page.changed.venue, ctx.viewer),
            include: { image: true },
          }),
        ).map((venue) => presentVenue(venue, ctx.urls, ctx.config.siteTimezone, 'list', ctx.viewer)),
    }),
    organizers: t.field({
      type: ['JSON'],
      extensions: jsonShape('TecOrganizer'),
      resolve: async (page, _a, ctx) =>
        inOrder(
          page.changed.organizer,
          await ctx.db.organizer.findMany({
            where: visibleWhere('organizer', page.changed.organizer, ctx.viewer),
            include: { image: true },
          }),
        ).map((organizer) =>
          presentOrganizer(organizer, ctx.urls, ctx.config.siteTimezone, 'list', ctx.viewer),
        ),
    }),
    categories: t.prismaField({
      type: [TecCategory],
      resolve: async (query, page, _a, ctx) =>
        inOrder(
          page.changed.category,
          await ctx.db.term.findMany({
            ...query,
            where: visibleWhere('category', page.changed.category, ctx.viewer),
          }),
        ),
    }),
    tags: t.prismaField({
      type: [TecTag],
      resolve: async (query, page, _a, ctx) =>
        inOrder(
          page.changed.tag,
          await ctx.db.term.findMany({ ...query, where: visibleWhere('tag', page.changed.tag, ctx.viewer) }),
        ),
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
