import { endpoint } from '../../shared/api/endpoint';
import { InvalidInputError } from '../../shared/errors';
import { assertCan } from '../../shared/permissions';
import { postSavedGroup } from '../../shared/contracts/saved-groups';
import { ID_LIST_DATATYPES, savedGroupDefinition } from '../../shared/domain/saved-groups';
import { newId } from '../../shared/ids';
import { attributes } from '../../shared/store/attributes';
import { ownerForCreate } from '../../shared/store/members';
import { assertProjectsExist } from '../../shared/store/projects';
import { savedGroups } from '../../shared/store/saved-groups';

/**
 * A list group matches one attribute by id, so a defined attribute must have an id-like type (as in
 * GrowthBook). An undefined one is accepted: organizations here start without GrowthBook's default attributes.
 */
async function assertIdListAttribute(orgId: string, key: string | undefined): Promise<void> {
  if (key === undefined) return;
  const attribute = await attributes.find(orgId, key);
  if (attribute && !ID_LIST_DATATYPES.includes(attribute.datatype)) {
    throw new InvalidInputError(`Request body: [attributeKey] attribute ${key} is a ${attribute.datatype}; a list group needs a string, number or secureString attribute`);
  }
}

export const handler = endpoint(postSavedGroup, async ({ body, auth }) => {
  assertCan(auth, postSavedGroup.permission, body.projects);
  const definition = savedGroupDefinition(body);
  await Promise.all([assertProjectsExist(auth.orgId, body.projects), assertIdListAttribute(auth.orgId, definition.attributeKey)]);
  const owner = await ownerForCreate(auth.orgId, body.owner, auth.memberId);
  const savedGroup = await savedGroups.create(auth.orgId, {
    id: newId('grp_'),
    name: body.name,
    ...definition,
    ...owner,
    description: body.description ?? '',
    projects: body.projects ?? [],
  });
  return { savedGroup };
});
