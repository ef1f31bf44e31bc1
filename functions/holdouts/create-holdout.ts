import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { createHoldout } from '../../shared/contracts/holdouts';
import { assertHoldoutEnvironments, DEFAULT_HOLDOUT_SIZE } from '../../shared/domain/holdouts';
import { newId } from '../../shared/ids';
import { environments } from '../../shared/store/environments';
import { holdouts } from '../../shared/store/holdouts';
import { assertProjectsExist } from '../../shared/store/projects';

export const handler = endpoint(createHoldout, async ({ body, auth }) => {
  assertCan(auth, 'write', body.projects ?? []);
  const [known] = await Promise.all([environments.all(auth.orgId), assertProjectsExist(auth.orgId, body.projects)]);
  assertHoldoutEnvironments(body.environments, known.map((environment) => environment.id));
  const id = newId('hld_');
  const holdout = await holdouts.create(auth.orgId, {
    id,
    name: body.name,
    description: body.description ?? '',
    projects: body.projects ?? [],
    tags: body.tags ?? [],
    archived: false,
    stage: 'draft',
    trackingKey: body.trackingKey ?? id,
    holdoutSize: body.holdoutSize ?? DEFAULT_HOLDOUT_SIZE,
    hashAttribute: body.hashAttribute ?? 'id',
    environments: body.environments ?? {},
  });
  return { holdout };
});
