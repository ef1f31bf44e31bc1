import { randomBytes } from 'node:crypto';
import { ConflictError, NotFoundError } from '../errors';
import { db, tableName } from '../db/client';
import { attributeTypesItem } from './attribute-types';
import { environments } from './environments';
import { newId } from '../ids';
import { keys } from '../db/keys';
import { transact, type StoredItem } from '../db/repository';
import type { ApprovalSettings, RequireReviewRule } from '../domain/revision-reviews';

export interface Organization {
  id: string;
  name: string;
  dateCreated: string;
}

/** A new secure-attribute salt: what SDK connections with `hashSecureAttributes` hash secure values with. */
export const newSecureAttributeSalt = () => randomBytes(12).toString('base64url');

/** The environments every new organization starts with. */
export const initialEnvironments = [
  { id: 'production', description: 'Production', toggleOnList: true, defaultState: true, projects: [] },
  { id: 'dev', description: 'Development', toggleOnList: true, defaultState: true, projects: [] },
];

/** The keys that list an organization on GSI2 (see keys.ts), so a listing of organizations is a Query. */
export const organizationIndexKeys = (orgId: string) => ({ GSI2PK: keys.organizationsPartition(), GSI2SK: orgId });

/** Creates an organization and its initial environments in one transaction. */
export async function createOrganization(name: string, id = newId('org_')): Promise<Organization> {
  const organization = { id, name, dateCreated: new Date().toISOString() };
  await transact([
    {
      op: {
        Put: {
          TableName: tableName(),
          Item: {
            ...keys.organization(id),
            ...organizationIndexKeys(id),
            entityType: 'ORG',
            version: 1,
            ...organization,
            secureAttributeSalt: newSecureAttributeSalt(),
          },
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
      onConditionFailed: () => new ConflictError('already_exists', `Organization ${id} already exists`),
    },
    // No attributes yet: payloads read their (empty) types from this item, never with a Query of the attributes.
    { op: { Put: { TableName: tableName(), Item: attributeTypesItem(id, []) } }, onConditionFailed: () => new ConflictError('already_exists', `Organization ${id} already exists`) },
    // A millisecond apart, so they list in this order.
    ...initialEnvironments.map((environment, i) =>
      environments.prepareCreate(id, environment, new Date(Date.parse(organization.dateCreated) + i).toISOString()),
    ),
  ]);
  return organization;
}

export async function findOrganization(id: string): Promise<Organization | undefined> {
  const { Item } = await db.get({ TableName: tableName(), Key: keys.organization(id) });
  return Item ? { id: Item.id, name: Item.name, dateCreated: Item.dateCreated } : undefined;
}

/** The salt of an organization item; an item from before salts hashes with an empty one, so clear text never goes out. */
export const secureAttributeSalt = (item: StoredItem | undefined): string => (item?.secureAttributeSalt as string | undefined) ?? '';

/** The organization's secure-attribute salt ('' when it has none yet). */
export async function getSecureAttributeSalt(orgId: string): Promise<string> {
  const { Item } = await db.get({ TableName: tableName(), Key: keys.organization(orgId), ConsistentRead: true });
  if (!Item) throw new NotFoundError(`Organization ${orgId} not found`);
  return secureAttributeSalt(Item as StoredItem);
}

/** Sets the organization's secure-attribute salt; SDK payloads hash with the new one from then on. */
export async function setSecureAttributeSalt(orgId: string, salt: string): Promise<void> {
  await db.update({
    TableName: tableName(),
    Key: keys.organization(orgId),
    UpdateExpression: 'SET secureAttributeSalt = :salt, version = version + :one',
    ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeValues: { ':salt': salt, ':one': 1 },
  }).catch((error: Error) => {
    if (error.name === 'ConditionalCheckFailedException') throw new NotFoundError(`Organization ${orgId} not found`);
    throw error;
  });
}

/** The settings an organization item holds beyond its name: the salt and the approval settings. */
export interface OrganizationSettings {
  secureAttributeSalt: string;
  approvals: ApprovalSettings;
  revertsBypassApproval?: boolean;
}

/** The organization's settings as stored (approval rules empty until set, as GrowthBook starts). */
export async function readOrganizationSettings(orgId: string): Promise<OrganizationSettings> {
  const { Item } = await db.get({ TableName: tableName(), Key: keys.organization(orgId), ConsistentRead: true });
  if (!Item) throw new NotFoundError(`Organization ${orgId} not found`);
  return {
    secureAttributeSalt: secureAttributeSalt(Item as StoredItem),
    approvals: {
      requireReviews: (Item.requireReviews as RequireReviewRule[] | undefined) ?? [],
      approvalFlows: (Item.approvalFlows as ApprovalSettings['approvalFlows'] | undefined) ?? { savedGroups: [] },
      ...(typeof Item.restApiBypassesReviews === 'boolean' ? { restApiBypassesReviews: Item.restApiBypassesReviews } : {}),
    },
    ...(typeof Item.revertsBypassApproval === 'boolean' ? { revertsBypassApproval: Item.revertsBypassApproval } : {}),
  };
}

/** The settings `writeOrganizationSettings` sets (`null` removes one). */
export interface SettingsChange {
  requireReviews?: RequireReviewRule[];
  approvalFlows?: ApprovalSettings['approvalFlows'];
  restApiBypassesReviews?: boolean | null;
  revertsBypassApproval?: boolean | null;
}

/** Sets (or, for `null`, removes) the given settings on the organization item, in one update. */
export async function writeOrganizationSettings(orgId: string, change: SettingsChange): Promise<void> {
  const entries = Object.entries(change).filter(([, value]) => value !== undefined);
  const names = Object.fromEntries(entries.map(([key], i) => [`#s${i}`, key]));
  const values = Object.fromEntries(entries.flatMap(([, value], i) => (value === null ? [] : [[`:s${i}`, value]])));
  const sets = entries.flatMap(([, value], i) => (value === null ? [] : [`#s${i} = :s${i}`]));
  const removes = entries.flatMap(([, value], i) => (value === null ? [`#s${i}`] : []));
  const expression = `SET ${[...sets, 'version = version + :one'].join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`;
  await db
    .update({
      TableName: tableName(),
      Key: keys.organization(orgId),
      UpdateExpression: expression,
      ConditionExpression: 'attribute_exists(PK)',
      ...(entries.length ? { ExpressionAttributeNames: names } : {}),
      ExpressionAttributeValues: { ...values, ':one': 1 },
    })
    .catch((error: Error) => {
      if (error.name === 'ConditionalCheckFailedException') throw new NotFoundError(`Organization ${orgId} not found`);
      throw error;
    });
}
