import { catastrophicPattern } from '../contracts/condition-patterns';
import { orgPk } from '../db/keys';
import { queryAll } from '../db/repository';

/** A stored condition whose pattern may backtrack catastrophically: the item's sort key, the field's path and the pattern. */
export interface StoredPattern {
  item: string;
  path: string;
  pattern: string;
}

/** Calls `visit` with every string field named `condition` in an item, at any depth, and its path. */
function conditionFields(node: unknown, path: string[], visit: (text: string, path: string) => void): void {
  if (node === null || typeof node !== 'object') return;
  for (const [key, value] of Object.entries(node)) {
    if (key === 'condition' && typeof value === 'string') visit(value, [...path, key].join('.'));
    else conditionFields(value, [...path, key], visit);
  }
}

/**
 * The conditions an organization stored before writes refused catastrophic patterns (features and their
 * revisions, saved groups, experiments, templates, ramp schedules: whatever holds a `condition` text),
 * read with one Query of its partition. Events are left out: they record what was, not what is served.
 */
export async function storedCatastrophicPatterns(orgId: string): Promise<StoredPattern[]> {
  const items = await queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': orgPk(orgId) } });
  const found: StoredPattern[] = [];
  for (const item of items) {
    if (String(item.SK).startsWith('EVENT#')) continue;
    conditionFields(item, [], (text, path) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        return;
      }
      const pattern = catastrophicPattern(parsed);
      if (pattern !== undefined) found.push({ item: String(item.SK), path, pattern });
    });
  }
  return found;
}
