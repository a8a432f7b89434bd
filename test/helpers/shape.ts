/**
 * The shape of a JSON value: its keys in order and the JSON type of each value (an array by its first
 * item), so that two answers compare by keys, order and types, not by their values.
 */
export function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.length ? [shape(value[0])] : [];
  if (value && typeof value === 'object') return Object.entries(value).map(([k, v]) => [k, shape(v)]);
  return value === null ? 'null' : typeof value;
}
