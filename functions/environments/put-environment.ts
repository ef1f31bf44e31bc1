import { endpoint } from '../../shared/api/endpoint';
import { putEnvironment } from '../../shared/contracts/environments';
import { environments, publicEnvironment } from '../../shared/store/environments';
import { assertProjectsExist } from '../../shared/store/projects';

export const handler = endpoint(putEnvironment, async ({ params, body, auth }) => {
  // The body's references are checked after the read, so an unknown environment is 404 first.
  const environment = await environments.update(auth.orgId, params.id, async (current) => {
    await assertProjectsExist(auth.orgId, body.projects);
    return { ...current, ...body };
  });
  return { environment: publicEnvironment(environment) };
});
