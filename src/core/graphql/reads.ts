import { useOnResolve } from '@envelop/on-resolve';
import {
  type DocumentNode,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLResolveInfo,
  Kind,
  type OperationDefinitionNode,
  getNamedType,
  getNullableType,
  isListType,
} from 'graphql';
import type { Plugin, YogaInitialContext } from 'graphql-yoga';
import type { Context } from '../context/context.js';
import type { DependencyKind } from '../cache/dependencies.js';
import { SHOWS_COLUMNS } from './schema/common.js';

// What a GraphQL read depended on, logged while it runs (the request's `ReadLog`, handed over by the
// endpoint when the answer may be shared): each record of a record type that a field returns, the
// families its root fields list or look up, and whatever the services log (an event list's window).
// A document with another root field (`changes`, `viewer`, `node`…) or an error depends on any write;
// one that failed (an error not of ours) is never shared.

/** Record types and the kind of their records. */
const RECORD_KINDS: Readonly<Record<string, RecordKind>> = {
  Event: 'event',
  Venue: 'venue',
  Organizer: 'organizer',
  Category: 'term',
  Tag: 'term',
};

/**
 * The root fields whose reads the log describes, with the families their answers depend on beyond the
 * records they show: lists hold any record of their family; an event's venues and organizers are
 * shown only while the viewer may see them (as on REST, `rest-map/routes.ts`).
 */
const ROOT_FAMILIES: Readonly<Record<string, readonly DependencyKind[]>> = {
  events: ['venue', 'organizer'],
  eventsConnection: ['venue', 'organizer'],
  event: ['venue', 'organizer'],
  eventBySlug: ['venue', 'organizer'],
  venues: ['venue'],
  venuesConnection: ['venue'],
  venue: [],
  venueBySlug: [],
  organizers: ['organizer'],
  organizersConnection: ['organizer'],
  organizer: [],
  organizerBySlug: [],
  categories: ['term', 'term-counts'],
  categoriesConnection: ['term', 'term-counts'],
  category: [],
  tags: ['term', 'term-counts'],
  tagsConnection: ['term', 'term-counts'],
  tag: [],
  __typename: [],
};

/** A single root field that found nothing: any record of its family may later be what it finds. */
const FAMILY_OF_KIND: Readonly<Record<RecordKind, DependencyKind>> = {
  event: 'events',
  venue: 'venue',
  organizer: 'organizer',
  term: 'term',
};

type RecordKind = 'event' | 'venue' | 'organizer' | 'term';

/** The types whose fields show an event's columns: the event, and its content as a request may see it. */
const EVENT_TYPES = new Set(['Event', 'EventContent']);

const columnsOfField = new WeakMap<object, readonly string[] | 'any'>();

/** The event columns a field of `EVENT_TYPES` shows: the one it exposes, or those it names (`SHOWS_COLUMNS`). */
function columnsShown(info: GraphQLResolveInfo): readonly string[] | 'any' {
  const field = (info.parentType as GraphQLObjectType).getFields()[info.fieldName];
  if (!field) return 'any';
  let columns = columnsOfField.get(field);
  if (!columns) {
    const { pothosExposedField: exposed, [SHOWS_COLUMNS]: named } = field.extensions as Record<
      string,
      unknown
    >;
    columns = typeof exposed === 'string' ? [exposed] : Array.isArray(named) ? (named as string[]) : 'any';
    columnsOfField.set(field, columns);
  }
  return columns;
}

const nullableOf = (type: GraphQLOutputType) => getNullableType(type) as GraphQLOutputType;

const recordKindOf = (type: GraphQLOutputType): RecordKind | undefined =>
  RECORD_KINDS[(getNamedType(type) as GraphQLNamedType).name];

export function graphqlReadsPlugin(): Plugin<YogaInitialContext & Context> {
  return {
    onPluginInit({ addPlugin }) {
      addPlugin(
        useOnResolve<YogaInitialContext & Context>(({ context, info, root }) => {
          const reads = context.reads;
          if (!reads) return;
          if (EVENT_TYPES.has(info.parentType.name)) reads.showsEventColumns(columnsShown(info));
          // A term's count moves without the term being written (`core/db/write-effects.ts`).
          if (info.fieldName === 'count' && recordKindOf(info.parentType) === 'term') {
            const id = (root as { id?: unknown } | null)?.id;
            if (typeof id === 'number') reads.record('term-count', id);
            else reads.readUnknown();
            return;
          }
          const kind = recordKindOf(info.returnType);
          if (!kind) return;
          const atRoot = info.parentType === info.schema.getQueryType();
          // A list of events the services did not run as a list (a series' exceptions) logs no window:
          // which events it holds may change with any event write.
          if (
            kind === 'event' &&
            !atRoot &&
            info.parentType.name !== 'EventPage' &&
            isListType(nullableOf(info.returnType))
          )
            reads.family('events');
          return ({ result }) => {
            if (result === null || result === undefined) {
              if (atRoot) reads.family(FAMILY_OF_KIND[kind]);
              return;
            }
            for (const record of Array.isArray(result) ? result : [result]) {
              const id = (record as { id?: unknown } | null)?.id;
              if (typeof id === 'number') reads.record(kind, id);
              else reads.readUnknown();
            }
          };
        }),
      );
    },
    onExecute({ args }) {
      const reads = (args.contextValue as Context).reads;
      if (!reads) return;
      const document = args.document as DocumentNode;
      const operation = document.definitions.find(
        (definition): definition is OperationDefinitionNode =>
          definition.kind === Kind.OPERATION_DEFINITION &&
          (!args.operationName || definition.name?.value === args.operationName),
      );
      for (const selection of operation?.selectionSet.selections ?? []) {
        const families = selection.kind === Kind.FIELD ? ROOT_FAMILIES[selection.name.value] : undefined;
        if (!families || operation?.operation !== 'query') reads.readUnknown();
        else for (const family of families) reads.family(family);
      }
      return {
        onExecuteDone({ result }) {
          if (!('data' in result)) return reads.answeredWithErrors();
          // A refusal of ours (a 4xx in `extensions.http`) is an answer like any other; anything
          // else is a failure (a lost connection, a bug): never shared.
          for (const error of result.errors ?? []) {
            const status = (error.extensions?.http as { status?: number } | undefined)?.status;
            if (status === undefined || status >= 500) return reads.answeredWithErrors();
            reads.readUnknown();
          }
        },
      };
    },
  };
}
