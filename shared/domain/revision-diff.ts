/**
 * The minimal JSON diff of two revisions' content, in the shape GrowthBook 5's diff endpoint answers
 * (`changes`, one entry per top-level field that differs): a field only one side has is `added` or
 * `removed`; arrays of objects with unique `id`s (rules) are compared item by item, with positions
 * and a reorder flag; objects list only the keys that differ; anything else shows both values.
 */

type Change = { field: string; change: 'added' | 'removed' | 'modified'; [detail: string]: unknown };

/** Values compare as their JSON text, so key order matters, as GrowthBook compares them. */
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The keys whose values differ, each side with its own. */
function differingKeys(before: Record<string, unknown>, after: Record<string, unknown>) {
  const b: Record<string, unknown> = {};
  const a: Record<string, unknown> = {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (same(before[key], after[key])) continue;
    if (key in before) b[key] = before[key];
    if (key in after) a[key] = after[key];
  }
  return { before: b, after: a };
}

/** Items by their unique string `id`, with positions; undefined when some item has none or shares one. */
function byId(list: unknown[]): Map<string, { item: Record<string, unknown>; index: number }> | undefined {
  const found = new Map<string, { item: Record<string, unknown>; index: number }>();
  for (const [index, item] of list.entries()) {
    if (!isRecord(item) || typeof item.id !== 'string' || found.has(item.id)) return undefined;
    found.set(item.id, { item, index });
  }
  return found;
}

/** Added, removed and modified items of two id-keyed lists; a changed relative order of the kept ones is a reorder. */
function itemChanges(before: unknown[], after: unknown[]) {
  const [was, now] = [byId(before), byId(after)];
  if (!was || !now) return undefined;
  const added = [...now].filter(([id]) => !was.has(id)).map(([, { item, index }]) => ({ index, value: item }));
  const removed = [...was].filter(([id]) => !now.has(id)).map(([, { item, index }]) => ({ index, value: item }));
  const modified = [...was].flatMap(([id, b]) => {
    const a = now.get(id);
    return a && !same(a.item, b.item) ? [{ id, beforeIndex: b.index, afterIndex: a.index, ...differingKeys(b.item, a.item) }] : [];
  });
  const kept = (from: typeof was, other: typeof was) => [...from.keys()].filter((id) => other.has(id));
  const reordered = !same(kept(was, now), kept(now, was));
  return { added, removed, modified, ...(reordered ? { reordered: true, order: [...now.keys()] } : {}) };
}

function describe(field: string, before: unknown, after: unknown): Change {
  const [gone, fresh] = [(before ?? null) === null, (after ?? null) === null];
  if (gone && !fresh) return { field, change: 'added', value: after };
  if (!gone && fresh) return { field, change: 'removed', value: before };
  if (Array.isArray(before) && Array.isArray(after)) {
    const items = itemChanges(before, after);
    if (items) return { field, change: 'modified', items };
  }
  if (isRecord(before) && isRecord(after)) return { field, change: 'modified', ...differingKeys(before, after) };
  return { field, change: 'modified', before, after };
}

/** The changes from `before` to `after`, one per top-level field that differs. */
export function describeDiff(before: Record<string, unknown>, after: Record<string, unknown>): Change[] {
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return fields.filter((field) => !same(before[field], after[field])).map((field) => describe(field, before[field], after[field]));
}
