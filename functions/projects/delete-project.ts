import { endpoint } from '../../shared/api/endpoint';
import { deleteProject } from '../../shared/contracts/projects';
import { removeProject } from '../../shared/store/projects';

export const handler = endpoint(deleteProject, async ({ params, auth }) => {
  await removeProject(auth.orgId, params.id);
  return { deletedId: params.id };
});
