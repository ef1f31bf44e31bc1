import type { AttributeDatatype } from '../payload/types';
import { db, tableName } from '../db/client';
import { keys } from '../db/keys';
import type { StoredItem, TransactionOp } from '../db/repository';
import { payloadChangedMeanwhile } from '../payload/write';

/**
 * The datatype of every attribute of an organization, in one item (`ATTRIBUTE_TYPES`), so an SDK
 * payload or a feature definition reads them in the same BatchGet as the saved groups and
 * experiments it names, instead of with a Query of their own. Each attribute write sets or removes
 * its property's `type#<property>` in the same transaction. The item says `complete` only when it
 * was built from all the attributes (a new organization, or `npm run admin -- migrate-payloads`);
 * until then readers read the attributes themselves.
 */

const TYPE_PREFIX = 'type#';

/** The op that records an attribute's datatype (or, without one, its deletion), for the attribute's own transaction. */
export function prepareAttributeType(orgId: string, property: string, datatype?: string): TransactionOp {
  const names = { '#version': 'version', '#type': `${TYPE_PREFIX}${property}` };
  return {
    op: {
      Update: {
        TableName: tableName(),
        Key: keys.attributeTypes(orgId),
        UpdateExpression: datatype ? 'ADD #version :one SET entityType = :entity, #type = :datatype' : 'ADD #version :one SET entityType = :entity REMOVE #type',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ':one': 1, ':entity': 'ATTRIBUTE_TYPES', ...(datatype ? { ':datatype': datatype } : {}) },
      },
    },
    onConditionFailed: payloadChangedMeanwhile,
  };
}

/** The complete item for `attributes`, for a new organization's transaction or the migration. */
export function attributeTypesItem(orgId: string, attributes: Array<{ property: string; datatype: string }>, version = 1): StoredItem {
  return {
    ...keys.attributeTypes(orgId),
    entityType: 'ATTRIBUTE_TYPES',
    version,
    complete: true,
    ...Object.fromEntries(attributes.map((attribute) => [`${TYPE_PREFIX}${attribute.property}`, attribute.datatype])),
  };
}

/** The datatypes an attribute-types item holds; undefined unless it is complete. */
export function readAttributeTypes(item: StoredItem | undefined): Map<string, AttributeDatatype> | undefined {
  if (!item?.complete) return undefined;
  const types = new Map<string, AttributeDatatype>();
  for (const [name, value] of Object.entries(item)) if (name.startsWith(TYPE_PREFIX)) types.set(name.slice(TYPE_PREFIX.length), value as AttributeDatatype);
  return types;
}

/**
 * Writes the complete item from `attributes`, unless a complete one is there: conditional on the
 * version read, so an attribute written meanwhile is not lost (the caller reads again and retries).
 * Returns whether it wrote.
 */
export async function saveAttributeTypes(
  orgId: string,
  attributes: Array<{ property: string; datatype: string }>,
  current: StoredItem | undefined,
): Promise<boolean> {
  if (current?.complete) return false;
  await db.put({
    TableName: tableName(),
    Item: attributeTypesItem(orgId, attributes, (current?.version ?? 0) + 1),
    ...(current
      ? { ConditionExpression: 'version = :version', ExpressionAttributeValues: { ':version': current.version } }
      : { ConditionExpression: 'attribute_not_exists(PK)' }),
  });
  return true;
}
