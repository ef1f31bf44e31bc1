import { InvalidInputError } from '../../shared/errors';
import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { postFeature } from '../../shared/contracts/features';
import { authorOf, newFeature } from '../../shared/domain/features';
import { assertReferencesValid, createFeature, environmentIds, presentFeatures } from '../../shared/store/features';
import { ownerForCreate } from '../../shared/store/members';
import { projects } from '../../shared/store/projects';

export const handler = endpoint(postFeature, async ({ body, auth }) => {
  assertCan(auth, 'write', body.project ? [body.project] : []);
  if (body.project && !(await projects.find(auth.orgId, body.project))) {
    throw new InvalidInputError(`Request body: [project] project ${body.project} does not exist`);
  }
  const owner = await ownerForCreate(auth.orgId, body.owner, auth.memberId);
  const environments = await environmentIds(auth.orgId);
  const content = newFeature(body, { environments, owner });
  const read = await assertReferencesValid(auth.orgId, content);
  const created = await createFeature(auth.orgId, content, authorOf(auth, 'Created via the REST API'));
  const [feature] = await presentFeatures(auth.orgId, [created], { environments, ...read });
  return { feature };
});
