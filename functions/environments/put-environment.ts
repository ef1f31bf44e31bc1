import { endpoint } from '../../shared/api/endpoint';
import { putEnvironment } from '../../shared/contracts/environments';
import { environments, publicEnvironment } from '../../shared/store/environments';
import { assertProjectsExist } from '../../shared/store/projects';

export const handler = endpoint(putEnvironment, async ({ params, body, auth }) => {
  await environments.get(auth.orgId, params.id); // 404 before checking the body's references
  await assertProjectsExist(auth.orgId, body.projects);
  const environment = await environments.update(auth.orgId, params.id, (current) => ({ ...current, ...body }));
  return { environment: publicEnvironment(environment) };
});
