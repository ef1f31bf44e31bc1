import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { putArchetype } from '../../shared/contracts/archetypes';
import { archetypes } from '../../shared/store/archetypes';
import { resolveOwner } from '../../shared/store/members';
import { withOwner } from '../../shared/domain/owner';
import { assertProjectsExist } from '../../shared/store/projects';

export const handler = endpoint(putArchetype, async ({ params, body, auth }) => {
  const { owner: ownerInput, ...fields } = body;
  await assertProjectsExist(auth.orgId, fields.projects);
  const owner = ownerInput !== undefined ? await resolveOwner(auth.orgId, ownerInput) : undefined;
  const archetype = await archetypes.update(auth.orgId, params.id, (current) => {
    assertCan(auth, putArchetype.permission, current.projects);
    if (fields.projects) assertCan(auth, putArchetype.permission, fields.projects);
    return withOwner({ ...current, ...fields }, owner);
  });
  return { archetype };
});
