import { builder } from './builder.js';
import { addApplicationPassword } from '../auth/users.js';
import { ApiError } from '../domain/errors.js';
import { ROLES, type Viewer as ViewerShape, assertAllowed, capabilitiesOf } from '../domain/permissions.js';

export const Role = builder.enumType('Role', { values: ROLES });

const ApplicationPassword = builder.prismaObject('ApplicationPassword', {
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('name'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    lastUsedAt: t.expose('lastUsedAt', { type: 'DateTime', nullable: true }),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
  }),
});

const Viewer = builder.objectRef<ViewerShape & { userId: number; login: string }>('Viewer').implement({
  description: 'The authenticated user (HTTP Basic with an application password)',
  fields: (t) => ({
    id: t.int({ resolve: (viewer) => viewer.userId }),
    login: t.exposeString('login'),
    role: t.field({ type: Role, resolve: (viewer) => viewer.role! }),
    capabilities: t.stringList({ resolve: (viewer) => capabilitiesOf(viewer) }),
    applicationPasswords: t.prismaField({
      type: [ApplicationPassword],
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
      id: t.exposeInt('id'),
      name: t.exposeString('name'),
      password: t.exposeString('password'),
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
    description: "Adds an application password to the viewer's own account",
    args: { name: t.arg.string({ required: true }) },
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
    description: "Revokes one of the viewer's own application passwords",
    args: { id: t.arg.int({ required: true }) },
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
