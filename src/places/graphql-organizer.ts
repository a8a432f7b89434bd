import { builder } from '../core/graphql/schema/builder.js';
import { recordIdOf } from '../core/graphql/schema/global-ids.js';
import {
  Author,
  ID_DESCRIPTION,
  Image,
  PostStatus,
  type PostStatusValue,
  VERSION_DESCRIPTION,
  withoutNulls,
} from '../core/graphql/schema/common.js';
import { recordVersion } from '../core/rules/versions.js';
import { permalink } from '../core/rules/urls.js';
import { passwordHides } from '../core/rules/visibility.js';
import type { Context } from '../core/context/context.js';
import type { Organizer as OrganizerRow } from '../generated/sqlite/client.js';
import { defineLinkedPostSchema } from './graphql.js';
import {
  createOrMatchOrganizer,
  deleteOrganizer,
  organizerArchive,
  organizerConnection,
  updateOrganizer,
} from './service/organizers.js';

const HIDDEN = '; "" while password-protected (unless you may edit it)';

/** A password-protected organizer shows only its name and ids to those who may not edit it (D6). */
const hides = (organizer: OrganizerRow, ctx: Context) => passwordHides(ctx.viewer, organizer);

export const Organizer = builder.prismaNode('Organizer', {
  id: { field: 'id' },
  findUnique: (id) => ({ id: recordIdOf(id) }),
  nullable: true,
  description:
    'Who runs events. A password-protected one withholds its description, contact and image ("" or null) from those who may not edit it',
  fields: (t) => {
    const text = (field: 'description' | 'excerpt' | 'phone' | 'email', description: string) =>
      t.string({
        description: `${description}${HIDDEN}`,
        resolve: (organizer, _a, ctx) => (hides(organizer, ctx) ? '' : organizer[field]),
      });
    return {
      databaseId: t.exposeInt('id', { description: ID_DESCRIPTION }),
      version: t.string({ description: VERSION_DESCRIPTION, resolve: (row) => recordVersion(row) }),
      slug: t.exposeString('slug', { description: 'The URL-friendly name, unique among organizers' }),
      name: t.exposeString('name', { description: 'The name' }),
      description: text('description', 'The description (HTML)'),
      excerpt: text('excerpt', 'A short summary (HTML)'),
      status: t.field({
        type: PostStatus,
        description: 'The post status: who may see it',
        resolve: (organizer) => organizer.status as PostStatusValue,
      }),
      url: t.string({
        description: "The absolute URL of the organizer's page on the website",
        resolve: (organizer, _args, ctx) => permalink(ctx.urls, 'organizer', organizer),
      }),
      phone: text('phone', 'The phone number, as entered'),
      website: t.string({
        nullable: true,
        description: 'The website URL; null when none is set or while password-protected',
        resolve: (organizer, _a, ctx) => (hides(organizer, ctx) ? null : organizer.website || null),
      }),
      email: text('email', 'The e-mail address, as entered'),
      passwordProtected: t.boolean({
        description: 'Whether it has a password (its content is then hidden from those who may not edit it)',
        resolve: (organizer) => Boolean(organizer.password),
      }),
      image: t.field({
        type: Image,
        nullable: true,
        description: 'The featured image; null when none or while password-protected',
        select: (_args, _ctx, nested) => ({ image: nested(true) }),
        resolve: (organizer, _a, ctx) => (hides(organizer, ctx) ? null : organizer.image),
      }),
      author: t.relation('author', {
        nullable: true,
        type: Author,
        description: 'The user who created it; null when it has no author',
      }),
      publishedAt: t.expose('publishedAt', { type: 'DateTime', description: 'Publication date (UTC)' }),
      modifiedAt: t.expose('modifiedAt', { type: 'DateTime', description: 'When it was last changed (UTC)' }),
    };
  },
});

export const { CreateInput: CreateOrganizerInput } = defineLinkedPostSchema({
  kind: 'organizer',
  model: 'Organizer',
  one: 'Organizer',
  many: 'Organizers',
  article: 'an organizer',
  search: 'Text in the name, description, excerpt, phone, e-mail or website (any case)',
  inputFields: (t) => ({
    phone: t.string({ description: 'The phone number (free text)' }),
    website: t.string({ description: 'A URL; "" clears it' }),
    email: t.string({ description: 'Kept as given (not validated, as the reference)' }),
  }),
  toInput: withoutNulls,
  archive: (ctx, filter, page, perPage) => organizerArchive(ctx.db, ctx, filter, page, perPage),
  connection: (ctx, filter, args, query) => organizerConnection(ctx.db, ctx, filter, args, query),
  create: createOrMatchOrganizer,
  update: updateOrganizer,
  remove: deleteOrganizer,
});
