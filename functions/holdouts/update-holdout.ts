import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { updateHoldout } from '../../shared/contracts/holdouts';
import { applyHoldoutUpdate, assertHoldoutEnvironments } from '../../shared/domain/holdouts';
import { environments } from '../../shared/store/environments';
import { holdouts } from '../../shared/store/holdouts';
import { assertProjectsExist } from '../../shared/store/projects';

export const handler = endpoint(updateHoldout, async ({ params, body, auth }) => {
  const holdout = await holdouts.update(auth.orgId, params.id, async (current) => {
    assertCan(auth, 'write', current.projects);
    if (body.projects) assertCan(auth, 'write', body.projects);
    const [known] = await Promise.all([environments.all(auth.orgId), assertProjectsExist(auth.orgId, body.projects)]);
    assertHoldoutEnvironments(body.environments, known.map((environment) => environment.id));
    return applyHoldoutUpdate(current, body);
  });
  return { holdout };
});
