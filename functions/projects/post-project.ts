import { endpoint } from '../../shared/api/endpoint';
import { postProject } from '../../shared/contracts/projects';
import { newId } from '../../shared/store/ids';
import { choosePublicId, projects } from '../../shared/store/projects';

export const handler = endpoint(postProject, async ({ body, auth }) => {
  const project = await projects.create(auth.orgId, {
    id: newId('prj_'),
    name: body.name,
    description: body.description ?? '',
    publicId: await choosePublicId(auth.orgId, body.name, body.publicId),
    settings: body.settings ?? {},
  });
  return { project };
});
