import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { postArchetype } from '../../shared/contracts/archetypes';
import { archetypes } from '../../shared/store/archetypes';
import { newId } from '../../shared/ids';
import { ownerForCreate } from '../../shared/store/members';
import { assertProjectsExist } from '../../shared/store/projects';

export const handler = endpoint(postArchetype, async ({ body, auth }) => {
  assertCan(auth, postArchetype.permission, body.projects);
  await assertProjectsExist(auth.orgId, body.projects);
  const { owner: ownerInput, ...fields } = body;
  const owner = await ownerForCreate(auth.orgId, ownerInput, auth.memberId);
  const archetype = await archetypes.create(auth.orgId, {
    id: newId('sam_'),
    description: '',
    attributes: {},
    projects: [],
    ...fields,
    ...owner,
  });
  return { archetype };
});
