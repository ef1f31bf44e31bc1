import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { deleteArchetype } from '../../shared/contracts/archetypes';
import { archetypes } from '../../shared/store/archetypes';

export const handler = endpoint(deleteArchetype, async ({ params, auth }) => {
  await archetypes.remove(auth.orgId, params.id, (archetype) => assertCan(auth, deleteArchetype.permission, archetype.projects));
  return { deletedId: params.id };
});
