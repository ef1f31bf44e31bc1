import { InvalidInputError } from '../../shared/errors';
import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { updateFeature } from '../../shared/contracts/features';
import { applyFeatureUpdate, authorOf } from '../../shared/domain/features';
import { assertReferencesValid, changeFeature, startEnvironmentsRead, presentFeatures } from '../../shared/store/features';
import { resolveOwner } from '../../shared/store/members';
import { projects } from '../../shared/store/projects';
import type { KnownReferences } from '../../shared/store/payload-references';

export const handler = endpoint(updateFeature, async ({ params, body, auth }) => {
  // Read once, alongside the feature: the write takes the environments' parents from it too.
  const environments = startEnvironmentsRead(auth.orgId);
  let read: KnownReferences = {};
  const changed = await changeFeature(
    auth.orgId,
    params.id,
    async (current) => {
      // Inside the change, so an unknown feature is a 404 before the body's references are looked at.
      assertCan(auth, updateFeature.permission, current.project ? [current.project] : []);
      if (body.project) {
        assertCan(auth, updateFeature.permission, [body.project]);
        if (!(await projects.find(auth.orgId, body.project))) {
          throw new InvalidInputError(`Request body: [project] project ${body.project} does not exist`);
        }
      }
      const owner = body.owner !== undefined ? await resolveOwner(auth.orgId, body.owner) : undefined;
      const next = await applyFeatureUpdate(current, body, { environments: await environments.ids(), owner });
      read = await assertReferencesValid(auth.orgId, next, current);
      return next;
    },
    authorOf(auth, 'Updated via the REST API'),
    { environments: environments.list },
  );
  const [feature] = await presentFeatures(auth.orgId, [changed], { environments: await environments.ids(), ...read });
  return { feature };
});
