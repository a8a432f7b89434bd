// What a kept value costs in memory, so that a cache's byte bound is a bound on memory and not on a
// part of it (a response's body without its key, headers and dependencies; a query's text without its
// syntax tree). Sizes follow V8 on 64-bit Node without pointer compression: 8 bytes a field, a 16-byte
// string header, one byte a character of a Latin-1 string and two otherwise. An estimate that errs
// high: what objects share (a constant list, a string) is counted for each holder; property names
// live in the shapes objects share and are not counted.

/** The header of a heap object, its map and the element store of an array or a property backing. */
const OBJECT_BYTES = 32;
const ARRAY_BYTES = 48;
const FIELD_BYTES = 8;
const STRING_HEADER_BYTES = 16;
/** A Buffer's JS side (the view and its ArrayBuffer); the bytes themselves are counted apart. */
const BUFFER_OBJECT_BYTES = 160;

const NOT_LATIN1 = /[\u0100-\uffff]/;

/** A string's size in the heap, rounded up to whole words as V8 allocates it. */
export function stringBytes(text: string): number {
  const chars = NOT_LATIN1.test(text) ? text.length * 2 : text.length;
  return STRING_HEADER_BYTES + Math.ceil(chars / 8) * 8;
}

/**
 * What `value` keeps alive: strings, numbers, arrays, plain objects, Maps, Sets and byte views, each
 * object once however often it is reached. Walked with a stack of its own, not by recursion: a syntax
 * tree's tokens are a linked list as long as the document (comments included).
 */
export function heldBytes(value: unknown): number {
  const seen = new Set<object>();
  const pending: unknown[] = [value];
  let bytes = 0;
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next === 'string') bytes += stringBytes(next);
    else if (typeof next === 'function') bytes += OBJECT_BYTES;
    else if (typeof next !== 'object' || next === null) bytes += FIELD_BYTES;
    else if (seen.has(next)) bytes += FIELD_BYTES;
    else {
      seen.add(next);
      bytes += ownedBytes(next, pending);
    }
  }
  return bytes;
}

/** An object's own size; what it refers to is pushed on `pending` to be counted. */
function ownedBytes(value: object, pending: unknown[]): number {
  if (ArrayBuffer.isView(value)) return BUFFER_OBJECT_BYTES + value.buffer.byteLength;
  if (value instanceof ArrayBuffer) return BUFFER_OBJECT_BYTES + value.byteLength;
  if (Array.isArray(value)) {
    for (const item of value as unknown[]) pending.push(item);
    return ARRAY_BYTES + value.length * FIELD_BYTES;
  }
  if (value instanceof Map) {
    for (const [key, item] of value as Map<unknown, unknown>) pending.push(key, item);
    return ARRAY_BYTES + value.size * 3 * FIELD_BYTES;
  }
  if (value instanceof Set) {
    for (const item of value as Set<unknown>) pending.push(item);
    return ARRAY_BYTES + value.size * 2 * FIELD_BYTES;
  }
  let bytes = OBJECT_BYTES;
  for (const key in value) {
    bytes += FIELD_BYTES;
    pending.push((value as Record<string, unknown>)[key]);
  }
  return bytes;
}

/**
 * A Buffer that owns exactly its bytes: a small Buffer made from a string is a view of Node's shared
 * 8 KB pool, and one kept by a cache keeps that whole slab (and whatever else was cut from it).
 */
export function ownBytes(body: Buffer): Buffer {
  if (body.byteOffset === 0 && body.buffer.byteLength === body.length) return body;
  const own = Buffer.allocUnsafeSlow(body.length);
  body.copy(own);
  return own;
}
