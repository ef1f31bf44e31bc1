import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { updateSavedGroup } from '../../shared/contracts/saved-groups';
import { assertFitsType } from '../../shared/domain/saved-groups';
import { resolveOwner } from '../../shared/store/members';
import { withOwner } from '../../shared/domain/owner';
import { assertProjectsExist } from '../../shared/store/projects';
import { savedGroups } from '../../shared/store/saved-groups';

export const handler = endpoint(updateSavedGroup, async ({ params, body, auth }) => {
  const { bypassApproval: _noApprovalFlow, owner: ownerInput, ...fields } = body;
  const owner = ownerInput !== undefined ? await resolveOwner(auth.orgId, ownerInput) : undefined;
  await assertProjectsExist(auth.orgId, fields.projects);
  const savedGroup = await savedGroups.update(auth.orgId, params.id, (current) => {
    assertCan(auth, updateSavedGroup.permission, current.projects);
    if (fields.projects) assertCan(auth, updateSavedGroup.permission, fields.projects);
    assertFitsType(current, fields);
    return withOwner({ ...current, ...fields }, owner);
  });
  return { savedGroup };
});
