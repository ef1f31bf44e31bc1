import { db, tableName } from '../../shared/db/client';
import { orgPk } from '../../shared/db/keys';

/** Derived caches that a read may legitimately refresh; everything else must stay as it was. */
const derived = new Set(['PAGEINDEX']);

/**
 * Every item of an organization's partition except derived caches, as JSON text: two equal
 * snapshots mean no request in between changed the organization's data.
 */
export async function organizationSnapshot(orgId: string): Promise<string> {
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db.query({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': orgPk(orgId) },
      ConsistentRead: true,
      ExclusiveStartKey,
    });
    items.push(...(page.Items ?? []).filter((item) => !derived.has(item.entityType as string)));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return JSON.stringify(items);
}
