import { ConflictError, InvalidInputError, NotFoundError } from '../errors';
import type { StoredMember } from '../contracts/members';
import { retryOnConflict } from '../db/optimistic';
import { db, tableName } from '../db/client';
import { newId } from '../ids';
import { keys } from '../db/keys';
import type { OwnerFields } from '../domain/owner';
import { repository, transact, type TransactionOp } from '../db/repository';
import { firstMissing, teams } from './teams';

export const members = repository<StoredMember>({ type: 'MEMBER', label: 'Member' });

/** Raises 400 naming the field unless every id in `ids` is a member of the organization. */
export async function assertMembersExist(orgId: string, ids: string[]): Promise<void> {
  const missing = firstMissing(ids, await members.getMany(orgId, ids));
  if (missing) throw new InvalidInputError(`Request body: [members.${missing[1]}] no member has the id ${missing[0]}`);
}

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
  const { Item } = await db.get({ TableName: tableName(), Key: keys.memberEmail(orgId, email) });
  return Item?.memberId as string | undefined;
}

/** The organization a member id belongs to (admin CLI: token create). */
export async function organizationOfMember(memberId: string): Promise<string | undefined> {
  const { Item } = await db.get({ TableName: tableName(), Key: keys.memberPointer(memberId) });
  return Item?.orgId as string | undefined;
}

/**
 * Resolves an `owner` given on create or update, as GrowthBook does: a `u_` id must name a member of
 * the organization (400 naming `field` otherwise); a member's e-mail becomes that member's id; any
 * other text, `""` included, is kept as given (scripts store display names there).
 */
export async function resolveOwner(orgId: string, owner: string, field = 'owner', strict = false): Promise<OwnerFields> {
  if (owner.startsWith('u_')) {
    const member = await members.find(orgId, owner);
    if (!member) throw new InvalidInputError(`Request body: [${field}] no member has the id ${owner}`);
    return { owner: member.id, ownerEmail: member.email };
  }
  const id = owner === '' ? undefined : await memberIdByEmail(orgId, owner);
  if (id) return { owner: id, ownerEmail: owner };
  if (strict) throw new InvalidInputError(`Request body: [${field}] no member has the e-mail ${owner}`);
  // An unresolved e-mail still reads back as the owner's e-mail, as GrowthBook answers it.
  return owner.includes('@') ? { owner, ownerEmail: owner } : { owner };
}

/**
 * The owner of a new resource: the one given (see `resolveOwner`), else the caller's member, else `""`.
 * `strict` is GrowthBook's rule for new experiments: the owner must be a member, and `""` means the caller.
 */
export async function ownerForCreate(
  orgId: string,
  given: string | undefined,
  memberId: string | undefined,
  strict = false,
): Promise<OwnerFields> {
  if (strict && given === '') return ownerForCreate(orgId, undefined, memberId);
  if (given !== undefined) return resolveOwner(orgId, given, 'owner', strict);
  if (!memberId) return { owner: '' };
  const member = await members.find(orgId, memberId);
  return member ? { owner: member.id, ownerEmail: member.email } : { owner: memberId };
}

/**
 * Removes a member from the organization in one transaction: the member (conditional on the version
 * read), its e-mail and id pointers, and its place in every team (each conditional on its version).
 * The member's personal access tokens stop working, as a token needs its member. 404 when unknown.
 */
export async function removeMember(orgId: string, id: string): Promise<void> {
  await retryOnConflict(async () => {
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
    await transact(ops);
  });
}
