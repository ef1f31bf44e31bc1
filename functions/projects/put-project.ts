import { endpoint } from '../../shared/api/endpoint';
import { putProject } from '../../shared/contracts/projects';
import { choosePublicId, projects } from '../../shared/store/projects';

export const handler = endpoint(putProject, async ({ params, body, auth }) => {
  const { settings, publicId: wanted, ...fields } = body;
  await projects.get(auth.orgId, params.id); // 404 before any other check
  const publicId = wanted ? await choosePublicId(auth.orgId, '', wanted, params.id) : undefined;
  const project = await projects.update(auth.orgId, params.id, (current) => ({
    ...current,
    ...fields,
    ...(publicId ? { publicId } : {}),
    // Settings are merged key by key: a partial update leaves the other settings as they are.
    ...(settings ? { settings: { ...current.settings, ...settings } } : {}),
  }));
  return { project };
});
