// A write may carry a group (`RunOptions.group`, `WriteScope.group`), stored on each of its rows: the
// change stream ignores it; webhooks deliver consecutive rows of one group as one summary. A group is a
// kind word, owned by the room that writes or reads it, and the id of what it groups: `series:12`.

export interface WriteGroup {
  kind: string;
  id: number;
}

/** The label stored on each row of a group. */
export const groupLabel = (kind: string, id: number) => `${kind}:${id}`;

/** What a stored group label names; null for none or one that is not `kind:id`. */
export function parseGroup(label: string | null): WriteGroup | null {
  const match = label ? /^([a-z][a-z-]*):(\d{1,15})$/.exec(label) : null;
  return match ? { kind: match[1]!, id: Number(match[2]) } : null;
}
