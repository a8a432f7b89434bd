import { builder } from './builder.js';
import {
  Author,
  Image,
  type InputFieldBuilder,
  PageInfo,
  PostStatus,
  type PostStatusValue,
  IF_MATCH_DESCRIPTION,
  VERSION_DESCRIPTION,
  withIfMatch,
  withoutNulls,
} from './common.js';
import { recordVersion } from '../domain/versions.js';
import { permalink } from '../domain/urls.js';
import { assertReadable, passwordHides } from '../domain/visibility.js';
import type { Context } from '../context.js';
import type { Organizer as OrganizerRow } from '../generated/sqlite/client.js';
import { ORGANIZER_BODY } from '../rest/linked-bodies.js';
import { restBody } from '../rest/body-fields.js';
import { writeLinked } from '../services/linked-posts.js';
import {
  createOrMatchOrganizer,
  deleteOrganizer,
  organizerArchive,
  updateOrganizer,
} from '../services/organizers.js';

/** A password-protected organizer shows only its name and ids to those who may not edit it (D6). */
const hides = (organizer: OrganizerRow, ctx: Context) => passwordHides(ctx.viewer, organizer);

export const Organizer = builder.prismaObject('Organizer', {
  fields: (t) => {
    const text = (field: 'description' | 'excerpt' | 'phone' | 'email') =>
      t.string({ resolve: (organizer, _a, ctx) => (hides(organizer, ctx) ? '' : organizer[field]) });
    return {
      id: t.exposeInt('id'),
      version: t.string({ description: VERSION_DESCRIPTION, resolve: (row) => recordVersion(row) }),
      slug: t.exposeString('slug'),
      name: t.exposeString('name'),
      description: text('description'),
      excerpt: text('excerpt'),
      status: t.field({ type: PostStatus, resolve: (organizer) => organizer.status as PostStatusValue }),
      url: t.string({ resolve: (organizer, _args, ctx) => permalink(ctx.urls, 'organizer', organizer) }),
      phone: text('phone'),
      website: t.string({
        nullable: true,
        resolve: (organizer, _a, ctx) => (hides(organizer, ctx) ? null : organizer.website || null),
      }),
      email: text('email'),
      passwordProtected: t.boolean({ resolve: (organizer) => Boolean(organizer.password) }),
      image: t.field({
        type: Image,
        nullable: true,
        select: (_args, _ctx, nested) => ({ image: nested(true) }),
        resolve: (organizer, _a, ctx) => (hides(organizer, ctx) ? null : organizer.image),
      }),
      author: t.relation('author', { nullable: true, type: Author }),
      publishedAt: t.expose('publishedAt', { type: 'DateTime' }),
      modifiedAt: t.expose('modifiedAt', { type: 'DateTime' }),
    };
  },
});

type OrganizerArchive = Awaited<ReturnType<typeof organizerArchive>>;

const OrganizerPage = builder.objectRef<OrganizerArchive>('OrganizerPage').implement({
  fields: (t) => ({
    items: t.prismaField({
      type: [Organizer],
      resolve: (query, page, _args, ctx) =>
        ctx.db.organizer.findMany({
          ...query,
          where: page.where,
          orderBy: page.orderBy,
          skip: page.skip,
          take: page.take,
        }),
    }),
    pageInfo: t.field({
      type: PageInfo,
      resolve: (page) => ({ ...page.paging, total: page.total, totalPages: page.totalPages }),
    }),
  }),
});

const OrganizerFilter = builder.inputType('OrganizerFilter', {
  fields: (t) => ({
    search: t.string({
      description: 'Text in the name, description, excerpt, phone, e-mail or website (any case)',
    }),
    event: t.int({ description: 'Organizers of this event (it must exist)' }),
    hasEvents: t.boolean({
      description: 'true: linked to an event that is not a draft or pending; false: to none',
    }),
    onlyWithUpcoming: t.boolean({ description: 'true: linked to an event starting now or later' }),
    status: t.field({
      type: [PostStatus],
      description: 'Only editors may ask for other statuses than publish',
    }),
  }),
});

/** The organizer fields of the write inputs, named as the domain input (`OrganizerInput`). */
function organizerInputFields(t: InputFieldBuilder, create: boolean) {
  return {
    name: t.string({ required: create, description: 'Not empty' }),
    description: t.string({ description: '"" clears it' }),
    status: t.field({
      type: PostStatus,
      description: 'Scaled back to pending (or draft) for those who may not publish',
    }),
    authorId: t.int({ description: 'An existing user; only editors may name someone else' }),
    date: t.string({ description: 'Publication date in the site time zone (any accepted date format)' }),
    dateUtc: t.string({ description: 'Publication date in UTC' }),
    phone: t.string(),
    website: t.string({ description: 'A URL; "" clears it' }),
    email: t.string({ description: 'Kept as given (not validated, as the reference)' }),
    image: t.string({
      description: 'An image media id, or an http(s) image URL (needs the upload capability); "" removes it',
    }),
  };
}

export const CreateOrganizerInput = builder.inputType('CreateOrganizerInput', {
  fields: (t) => organizerInputFields(t, true),
});

const UpdateOrganizerInput = builder.inputType('UpdateOrganizerInput', {
  fields: (t) => ({
    ...organizerInputFields(t, false),
    password: t.string({
      description: 'Hides the organizer content from those who may not edit it; "" removes it',
    }),
  }),
});

const UpdateOrganizerBySlugInput = builder.inputType('UpdateOrganizerBySlugInput', {
  fields: (t) => organizerInputFields(t, false),
});

/** The REST body of an organizer input (event inputs that create organizers still take REST bodies). */
export function organizerBody(input: typeof CreateOrganizerInput.$inferInput): Record<string, unknown> {
  return restBody(ORGANIZER_BODY, withoutNulls(input));
}

builder.queryFields((t) => ({
  organizer: t.prismaField({
    type: Organizer,
    nullable: true,
    description:
      'An organizer by id; null (with an error entry saying why) when it does not exist or you may not read it',
    args: { id: t.arg.int({ required: true }) },
    resolve: async (query, _root, { id }, ctx) =>
      assertReadable(
        'organizer',
        await ctx.db.organizer.findUnique({ ...query, where: { id } }),
        id,
        ctx.viewer,
      ),
  }),
  organizerBySlug: t.prismaField({
    type: Organizer,
    nullable: true,
    description:
      'An organizer by slug; null (with an error entry saying why) when it does not exist or you may not read it',
    args: { slug: t.arg.string({ required: true }) },
    resolve: async (query, _root, { slug }, ctx) =>
      assertReadable(
        'organizer',
        await ctx.db.organizer.findUnique({ ...query, where: { slug } }),
        slug,
        ctx.viewer,
      ),
  }),
  organizers: t.field({
    type: OrganizerPage,
    description: 'Organizers, newest first',
    args: { filter: t.arg({ type: OrganizerFilter }), page: t.arg.int(), perPage: t.arg.int() },
    resolve: (_root, { filter, page, perPage }, ctx) =>
      organizerArchive(ctx.db, ctx, filter ?? {}, page, perPage),
  }),
}));

builder.mutationFields((t) => ({
  createOrganizer: t.prismaField({
    type: Organizer,
    description:
      'Creates an organizer, or returns the existing one with the same name (and description, when given)',
    args: { input: t.arg({ type: CreateOrganizerInput, required: true }) },
    resolve: (query, _root, { input }, ctx) =>
      writeLinked(ctx, 'organizer', async (w) => {
        const { record } = await createOrMatchOrganizer(w, withoutNulls(input));
        return w.tx.organizer.findUniqueOrThrow({ ...query, where: { id: record.id } });
      }),
  }),
  updateOrganizer: t.prismaField({
    type: Organizer,
    args: {
      id: t.arg.int({ required: true }),
      input: t.arg({ type: UpdateOrganizerInput, required: true }),
      ifMatch: t.arg.string({ description: IF_MATCH_DESCRIPTION }),
    },
    resolve: (query, _root, { id, input, ifMatch }, ctx) =>
      writeLinked(withIfMatch(ctx, ifMatch), 'organizer', async (w) => {
        await updateOrganizer(w, { id }, withoutNulls(input));
        return w.tx.organizer.findUniqueOrThrow({ ...query, where: { id } });
      }),
  }),
  updateOrganizerBySlug: t.prismaField({
    type: Organizer,
    args: {
      slug: t.arg.string({ required: true }),
      input: t.arg({ type: UpdateOrganizerBySlugInput, required: true }),
      ifMatch: t.arg.string({ description: IF_MATCH_DESCRIPTION }),
    },
    resolve: (query, _root, { slug, input, ifMatch }, ctx) =>
      writeLinked(withIfMatch(ctx, ifMatch), 'organizer', async (w) => {
        const { id } = await updateOrganizer(w, { slug }, withoutNulls(input));
        return w.tx.organizer.findUniqueOrThrow({ ...query, where: { id } });
      }),
  }),
  deleteOrganizer: t.prismaField({
    type: Organizer,
    description:
      'Moves the organizer to the trash (unlinking it from its events); force: deletes it for good (editors)',
    args: {
      id: t.arg.int({ required: true }),
      force: t.arg.boolean({ defaultValue: false }),
      ifMatch: t.arg.string({ description: IF_MATCH_DESCRIPTION }),
    },
    resolve: (query, _root, { id, force, ifMatch }, ctx) =>
      writeLinked(withIfMatch(ctx, ifMatch), 'organizer', (w) =>
        deleteOrganizer(w, { id }, force ?? false, (tx, organizerId) =>
          tx.organizer.findUniqueOrThrow({ ...query, where: { id: organizerId } }),
        ),
      ),
  }),
  deleteOrganizerBySlug: t.prismaField({
    type: Organizer,
    description: 'As deleteOrganizer, by slug',
    args: {
      slug: t.arg.string({ required: true }),
      force: t.arg.boolean({ defaultValue: false }),
      ifMatch: t.arg.string({ description: IF_MATCH_DESCRIPTION }),
    },
    resolve: (query, _root, { slug, force, ifMatch }, ctx) =>
      writeLinked(withIfMatch(ctx, ifMatch), 'organizer', (w) =>
        deleteOrganizer(w, { slug }, force ?? false, (tx, organizerId) =>
          tx.organizer.findUniqueOrThrow({ ...query, where: { id: organizerId } }),
        ),
      ),
  }),
}));
