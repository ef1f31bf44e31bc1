import { endpoint } from '../../shared/api/endpoint';
import { InvalidInputError } from '../../shared/errors';
import { assertCan } from '../../shared/permissions';
import { revertFeature } from '../../shared/contracts/feature-cleanup';
import { authorOf, revertedFeature } from '../../shared/domain/features';
import { assertReferencesValid, changeFeature, startEnvironmentsRead, featureRevision } from '../../shared/store/features';
import { presentFeatures } from '../../shared/payload/definitions';
import type { KnownReferences } from '../../shared/payload/types';

export const handler = endpoint(revertFeature, async ({ params, body, auth }) => {
  // Read once, alongside the feature: the write takes the environments' parents from it too.
  const environments = startEnvironmentsRead(auth.orgId);
  let read: KnownReferences = {};
  const changed = await changeFeature(
    auth.orgId,
    params.id,
    async (current) => {
      assertCan(auth, revertFeature.permission, current.project ? [current.project] : []);
      const revision = await featureRevision(auth.orgId, current.id, body.revision);
      if (!revision) throw new InvalidInputError(`Request body: [revision] feature ${current.id} has no revision ${body.revision}`);
      if (revision.version === current.revision.version) {
        throw new InvalidInputError(`Request body: [revision] ${body.revision} is the live revision; can only revert to a previously published one`);
      }
      const next = revertedFeature(current, revision);
      // What the old revision named may have been deleted since.
      read = await assertReferencesValid(auth.orgId, next, current);
      return next;
    },
    authorOf(auth, body.comment || `Reverted to revision ${body.revision}`),
    { environments: environments.list },
  );
  const [feature] = await presentFeatures(auth.orgId, [changed], { environments: await environments.ids(), ...read });
  return { feature };
});
