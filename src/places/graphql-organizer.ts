import { builder } from '../core/graphql/schema/builder.js';
import { recordIdOf } from '../core/graphql/schema/global-ids.js';
import { Image, withoutNulls } from '../core/graphql/schema/common.js';
import { HIDDEN, defineLinkedPostSchema, hides, linkedPostFields } from './graphql.js';
import {
  createOrMatchOrganizer,
  deleteOrganizer,
  organizerArchive,
  organizerConnection,
  updateOrganizer,
} from './service/organizers.js';

export const Organizer = builder.prismaNode('Organizer', {
  id: { field: 'id' },
  findUnique: (id) => ({ id: recordIdOf(id) }),
  nullable: true,
  description:
    'Who runs events. A password-protected one withholds its description, contact and image ("" or null) from those who may not edit it',
  fields: (t) => {
    const text = (field: 'phone' | 'email', description: string) =>
      t.string({
        description: `${description}${HIDDEN}`,
        resolve: (organizer, _a, ctx) => (hides(organizer, ctx) ? '' : organizer[field]),
      });
    return {
      ...linkedPostFields(t, 'organizer'),
      phone: text('phone', 'The phone number, as entered'),
      email: text('email', 'The e-mail address, as entered'),
      image: t.field({
        type: Image,
        nullable: true,
        description: 'The featured image; null when none or while password-protected',
        select: (_args, _ctx, nested) => ({ image: nested(true) }),
        resolve: (organizer, _a, ctx) => (hides(organizer, ctx) ? null : organizer.image),
      }),
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
  archive: organizerArchive,
  connection: organizerConnection,
  create: createOrMatchOrganizer,
  update: updateOrganizer,
  remove: deleteOrganizer,
});
