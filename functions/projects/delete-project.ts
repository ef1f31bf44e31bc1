import { endpoint } from '../../shared/api/endpoint';
import { deleteProject } from '../../shared/contracts/projects';
import { assertCan } from '../../shared/permissions';
import { removeProject } from '../../shared/store/projects';

export const handler = endpoint(deleteProject, async ({ params, auth }) => {
  assertCan(auth, deleteProject.permission, [params.id]);
  await removeProject(auth.orgId, params.id);
  return { deletedId: params.id };
});
