import { endpoint } from '../../shared/api/endpoint';
import { putProject, type Project } from '../../shared/contracts/projects';
import { assertCan } from '../../shared/permissions';
import { projects, updateProject } from '../../shared/store/projects';

export const handler = endpoint(putProject, async ({ params, body, auth }) => {
  // A project admin manages the projects it holds the role in.
  assertCan(auth, putProject.permission, [params.id]);
  const { settings, publicId, ...fields } = body;
  const change = (current: Project): Project => ({
    ...current,
    ...fields,
    ...(publicId ? { publicId } : {}),
    // Settings given replace the whole object, as in GrowthBook: a key left out is cleared.
    ...(settings ? { settings } : {}),
  });
  // Only a request naming a publicId may move its guard item, which takes a transaction.
  const project = publicId ? await updateProject(auth.orgId, params.id, change) : await projects.update(auth.orgId, params.id, change);
  return { project };
});
