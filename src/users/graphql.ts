import { builder } from '../core/graphql/schema/builder.js';
import { addApplicationPassword } from './users.js';
import { ApiError } from '../core/errors/errors.js';
import {
  ROLES,
  type Viewer as ViewerShape,
  assertAllowed,
  capabilitiesOf,
} from '../core/rules/permissions.js';

const Role = builder.enumType('Role', {
  description: "A user's WordPress role: what they may read and write (see `Viewer.capabilities`)",
  values: {
    administrator: { description: 'Everything, including webhooks and other users' },
    editor: { description: "Publishes and edits anyone's events, venues, organizers and terms" },
    author: { description: 'Publishes and edits their own posts' },
    contributor: { description: 'Writes their own posts as drafts or pending review; cannot publish' },
    subscriber: { description: 'Reads only (signed in, no editing)' },
  } satisfies Record<(typeof ROLES)[number], { description: string }>,
});

const ApplicationPassword = builder.prismaObject('ApplicationPassword', {
  description: "One of the viewer's application passwords (the secret itself is never shown again)",
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Numeric id, for `revokeApplicationPassword`' }),
    name: t.exposeString('name', { description: 'The label given when it was created' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created (UTC)' }),
    lastUsedAt: t.expose('lastUsedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it last authenticated a request (UTC); null if never used',
    }),
    revokedAt: t.expose('revokedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it was revoked (UTC) and stopped working; null while it is valid',
    }),
  }),
});

const Viewer = builder.objectRef<ViewerShape & { userId: number; login: string }>('Viewer').implement({
  description: 'The authenticated user (HTTP Basic with an application password)',
  fields: (t) => ({
    id: t.int({
      description: "The user's numeric id (an event's `author.id`)",
      resolve: (viewer) => viewer.userId,
    }),
    login: t.exposeString('login', { description: 'The user name used to sign in' }),
    role: t.field({ type: Role, description: "The user's role", resolve: (viewer) => viewer.role! }),
    capabilities: t.stringList({
      description:
        'The WordPress capabilities the role grants, e.g. `edit_posts`, `publish_posts`, `manage_users`',
      resolve: (viewer) => capabilitiesOf(viewer),
    }),
    applicationPasswords: t.prismaField({
      type: [ApplicationPassword],
      description: "The viewer's application passwords, revoked ones included, oldest first",
      resolve: (query, viewer, _args, ctx) =>
        ctx.db.applicationPassword.findMany({
          ...query,
          where: { userId: viewer.userId },
          orderBy: { id: 'asc' },
        }),
    }),
  }),
});

const NewApplicationPassword = builder
  .objectRef<{ id: number; name: string; password: string }>('NewApplicationPassword')
  .implement({
    description: 'Shown once: only a hash is stored',
    fields: (t) => ({
      id: t.exposeInt('id', { description: 'Numeric id, for `revokeApplicationPassword`' }),
      name: t.exposeString('name', { description: 'The label given' }),
      password: t.exposeString('password', {
        description: 'The password, in clear this once: use it with the login for HTTP Basic authentication',
      }),
    }),
  });

function signedIn(viewer: ViewerShape): viewer is ViewerShape & { userId: number; login: string } {
  return viewer.userId !== null && viewer.login !== null;
}

builder.queryField('viewer', (t) =>
  t.field({
    type: Viewer,
    nullable: true,
    description: 'null for anonymous requests',
    resolve: (_root, _args, ctx) => (signedIn(ctx.viewer) ? ctx.viewer : null),
  }),
);

builder.mutationFields((t) => ({
  createApplicationPassword: t.field({
    type: NewApplicationPassword,
    description:
      "Adds an application password to the viewer's own account. Errors: rest_forbidden (401) when anonymous, rest_invalid_param (400) for a bad name",
    args: {
      name: t.arg.string({ required: true, description: 'A label for it (1–100 characters, trimmed)' }),
    },
    resolve: (_root, { name }, ctx) => {
      const trimmed = name.trim();
      if (!trimmed || trimmed.length > 100) {
        throw new ApiError(400, 'rest_invalid_param', 'Invalid parameter(s): name', {
          params: { name: 'Invalid parameter.' },
        });
      }
      assertAllowed(ctx.viewer, signedIn(ctx.viewer));
      return addApplicationPassword(ctx, ctx.viewer.userId!, trimmed);
    },
  }),
  revokeApplicationPassword: t.prismaField({
    type: ApplicationPassword,
    description:
      "Revokes one of the viewer's own application passwords (revoking twice keeps the first time). Errors: rest_forbidden (401) when anonymous, application_password_not_found (404) for an id that is not the viewer's",
    args: { id: t.arg.int({ required: true, description: 'The application password id' }) },
    resolve: async (query, _root, { id }, ctx) => {
      assertAllowed(ctx.viewer, signedIn(ctx.viewer));
      const userId = ctx.viewer.userId!;
      return ctx.writes.run(ctx, async (w) => {
        const owned = await w.tx.applicationPassword.findFirst({ where: { id, userId } });
        if (!owned)
          throw new ApiError(404, 'application_password_not_found', 'No such application password.');
        if (!owned.revokedAt) w.changed('user', userId, 'updated');
        return w.tx.applicationPassword.update({
          ...query,
          where: { id },
          data: { revokedAt: owned.revokedAt ?? new Date() },
        });
      });
    },
  }),
}));
