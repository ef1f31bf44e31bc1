import { endpoint } from '../../shared/api/endpoint';
import { allInOrder } from '../../shared/concurrency';
import { assertCan } from '../../shared/permissions';
import { postFeature } from '../../shared/contracts/features';
import { authorOf, newFeature } from '../../shared/domain/features';
import { environments as environmentList } from '../../shared/store/environments';
import { assertReferencesValid, createFeature, presentFeatures } from '../../shared/store/features';
import { ownerForCreate } from '../../shared/store/members';
import { assertProjectsExist } from '../../shared/store/projects';

export const handler = endpoint(postFeature, async ({ body, auth }) => {
  assertCan(auth, postFeature.permission, body.project ? [body.project] : []);
  const environmentsRead = environmentList.all(auth.orgId);
  const [, owner, all] = await allInOrder([
    body.project ? assertProjectsExist(auth.orgId, [body.project], 'project') : undefined,
    ownerForCreate(auth.orgId, body.owner, auth.memberId),
    environmentsRead,
  ]);
  const environments = all.map((environment) => environment.id);
  const defaultStates = Object.fromEntries(all.map((environment) => [environment.id, environment.defaultState]));
  const content = await newFeature(body, { environments, owner, defaultStates });
  const read = await assertReferencesValid(auth.orgId, content);
  const created = await createFeature(auth.orgId, content, authorOf(auth, 'Created via the REST API'), { environments: environmentsRead });
  const [feature] = await presentFeatures(auth.orgId, [created], { environments, ...read });
  return { feature };
});
