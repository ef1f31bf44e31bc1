import { endpoint } from '../../shared/api/endpoint';
import { postProject } from '../../shared/contracts/projects';
import { newId } from '../../shared/ids';
import { createProject } from '../../shared/store/projects';

export const handler = endpoint(postProject, async ({ body, auth }) => {
  const project = await createProject(
    auth.orgId,
    { id: newId('prj_'), name: body.name, description: body.description ?? '', settings: body.settings ?? {} },
    body.publicId,
  );
  return { project };
});
