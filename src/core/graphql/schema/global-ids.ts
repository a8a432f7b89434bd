import { invalidParams } from '../../errors/errors.js';
import { isRecordId } from '../../rules/ids.js';

// Relay global ids: opaque to clients, unique across types. The encoding is the relay plugin's own
// (base64 of `Type:id`); decoding is strict, so a forged or truncated id is a 400 naming the argument,
// never a database error.

/** The object types that implement `Node` (their ids decode; any other type name is refused). */
const NODE_TYPES = ['Event', 'Venue', 'Organizer', 'Category', 'Tag'] as const;
type NodeType = (typeof NODE_TYPES)[number];

const isNodeType = (name: string): name is NodeType => (NODE_TYPES as readonly string[]).includes(name);

export function encodeGlobalId(typename: string, id: bigint | number | string): string {
  return Buffer.from(`${typename}:${id}`, 'utf8').toString('base64');
}

export function decodeGlobalId(globalId: string): { typename: NodeType; id: string } {
  const text = /^[A-Za-z0-9+/]+={0,2}$/.test(globalId)
    ? Buffer.from(globalId, 'base64').toString('utf8')
    : '';
  const [typename = '', id = '', ...rest] = text.split(':');
  if (rest.length || !isNodeType(typename) || !/^\d{1,10}$/.test(id) || !isRecordId(Number(id)))
    throw invalidParams({ id: 'Not a global id of this API.' });
  return { typename, id };
}

/** The record id inside a decoded global id (already checked to be one). */
export const recordIdOf = (id: string): number => Number(id);
