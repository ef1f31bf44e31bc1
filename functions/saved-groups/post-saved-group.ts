import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { postSavedGroup } from '../../shared/contracts/saved-groups';
import { savedGroupDefinition } from '../../shared/domain/saved-groups';
import { newId } from '../../shared/ids';
import { ownerForCreate } from '../../shared/store/members';
import { savedGroups } from '../../shared/store/saved-groups';

export const handler = endpoint(postSavedGroup, async ({ body, auth }) => {
  assertCan(auth, 'write', body.projects);
  const definition = savedGroupDefinition(body);
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
