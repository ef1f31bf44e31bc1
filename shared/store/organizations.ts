import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { ConflictError } from '../errors';
import { db, tableName } from './client';
import { environments } from './environments';
import { newId } from '../ids';
import { keys } from './keys';
import { transact } from './repository';

export interface Organization {
  id: string;
  name: string;
  dateCreated: string;
}

/** The environments every new organization starts with. */
export const initialEnvironments = [
  { id: 'production', description: 'Production', toggleOnList: true, defaultState: true, projects: [] },
  { id: 'dev', description: 'Development', toggleOnList: true, defaultState: true, projects: [] },
];

/** Creates an organization and its initial environments in one transaction. */
export async function createOrganization(name: string, id = newId('org_')): Promise<Organization> {
  const organization = { id, name, dateCreated: new Date().toISOString() };
  await transact([
    {
      op: {
        Put: {
          TableName: tableName(),
          Item: { ...keys.organization(id), entityType: 'ORG', version: 1, ...organization },
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
      onConditionFailed: () => new ConflictError('already_exists', `Organization ${id} already exists`),
    },
    // A millisecond apart, so they list in this order.
    ...initialEnvironments.map((environment, i) =>
      environments.prepareCreate(id, environment, new Date(Date.parse(organization.dateCreated) + i).toISOString()),
    ),
  ]);
  return organization;
}

export async function findOrganization(id: string): Promise<Organization | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.organization(id) }));
  return Item ? { id: Item.id, name: Item.name, dateCreated: Item.dateCreated } : undefined;
}
