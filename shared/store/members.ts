import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { ConflictError, InvalidInputError, NotFoundError } from '../errors';
import type { StoredMember } from '../contracts/members';
import { db, tableName } from './client';
import { newId } from '../ids';
import { keys } from './keys';
import { repository, transact, type TransactionOp } from './repository';
// teams.ts imports this module too; both only use each other inside functions, so the cycle is safe.
import { teams } from './teams';

export const members = repository<StoredMember>({ type: 'MEMBER', label: 'Member' });

/** Adds a member; its e-mail is unique in the organization (an item of its own guards that). */
export async function addMember(orgId: string, data: Omit<StoredMember, 'id' | 'dateCreated' | 'dateUpdated'>) {
  const created = members.prepareCreate(orgId, { ...data, id: newId('u_') });
  await transact([
    created,
    {
      op: {
        Put: {
          TableName: tableName(),
          Item: { ...keys.memberEmail(orgId, data.email), entityType: 'MEMBER_EMAIL', version: 1, memberId: created.entity.id },
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
      onConditionFailed: () => new ConflictError('already_exists', `A member with e-mail ${data.email} already exists`),
    },
    {
      // Lets a personal access token be made from the member id alone.
      op: {
        Put: {
          TableName: tableName(),
          Item: { ...keys.memberPointer(created.entity.id), entityType: 'MEMBER', version: 1, orgId },
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
      onConditionFailed: () => new ConflictError('already_exists', `Member ${created.entity.id} already exists`),
    },
  ]);
  return created.entity;
}

/** The id of the member with this e-mail, if any. */
export async function memberIdByEmail(orgId: string, email: string): Promise<string | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.memberEmail(orgId, email) }));
  return Item?.memberId as string | undefined;
}

/** The organization a member id belongs to (admin CLI: token create). */
export async function organizationOfMember(memberId: string): Promise<string | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.memberPointer(memberId) }));
  return Item?.orgId as string | undefined;
}

const looksLikeEmail = (owner: string) => owner.includes('@');

/**
 * Resolves an `owner` given on create or update: an e-mail becomes the member's id, an id must
 * name a member of the organization. Raises 400 naming `field` otherwise.
 */
export async function resolveOwner(orgId: string, owner: string, field = 'owner'): Promise<{ id: string; email: string }> {
  if (looksLikeEmail(owner)) {
    const id = await memberIdByEmail(orgId, owner);
    if (!id) throw new InvalidInputError(`Request body: [${field}] no member has the e-mail ${owner}`);
    return { id, email: owner };
  }
  const member = await members.find(orgId, owner);
  if (!member) throw new InvalidInputError(`Request body: [${field}] no member has the id ${owner}`);
  return { id: member.id, email: member.email };
}

/**
 * Removes a member from the organization in one transaction: the member (conditional on the version
 * read), its e-mail and id pointers, and its place in every team (each conditional on its version).
 * The member's personal access tokens stop working, as a token needs its member. 404 when unknown.
 */
export async function removeMember(orgId: string, id: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const [current, orgTeams] = await Promise.all([members.read(orgId, id), teams.all(orgId)]);
    if (!current) throw new NotFoundError(`Member ${id} not found`);
    const changedMeanwhile = () => new ConflictError('conflict', `Member ${id} was changed by another request; retry`);
    const ops: TransactionOp[] = [
      {
        op: {
          Delete: {
            TableName: tableName(),
            Key: keys.entity(orgId, 'MEMBER', id),
            ConditionExpression: 'version = :version',
            ExpressionAttributeValues: { ':version': current.version },
          },
        },
        onConditionFailed: changedMeanwhile,
      },
      { op: { Delete: { TableName: tableName(), Key: keys.memberEmail(orgId, current.entity.email) } }, onConditionFailed: changedMeanwhile },
      { op: { Delete: { TableName: tableName(), Key: keys.memberPointer(id) } }, onConditionFailed: changedMeanwhile },
    ];
    const memberTeams = await teams.readMany(orgId, orgTeams.filter((team) => team.members.includes(id)).map((team) => team.id));
    for (const team of memberTeams) {
      ops.push(teams.prepareUpdate(orgId, team, { ...team.entity, members: team.entity.members.filter((member) => member !== id) }));
    }
    try {
      await transact(ops);
      return;
    } catch (error) {
      if (!(error instanceof ConflictError && error.code === 'conflict') || attempt === 5) throw error;
    }
  }
}
