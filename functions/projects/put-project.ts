import { endpoint } from '../../shared/api/endpoint';
import { putProject, type Project } from '../../shared/contracts/projects';
import { projects, updateProject } from '../../shared/store/projects';

export const handler = endpoint(putProject, async ({ params, body, auth }) => {
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
