import { endpoint } from '../../shared/api/endpoint';
import { getProject } from '../../shared/contracts/projects';
import { projects } from '../../shared/store/projects';

export const handler = endpoint(getProject, async ({ params, auth }) => ({
  project: await projects.get(auth.orgId, params.id),
}));
