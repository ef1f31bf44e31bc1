import { endpoint } from '../../shared/api/endpoint';
import { startEarly } from '../../shared/concurrency';
import { assertCan } from '../../shared/permissions';
import { toggleFeature } from '../../shared/contracts/features';
import { applyToggle, authorOf, toggleOn } from '../../shared/domain/features';
import { changeFeature, environmentIds, presentFeatures } from '../../shared/store/features';

export const handler = endpoint(toggleFeature, async ({ params, body, auth }) => {
  const toggles = Object.fromEntries(Object.entries(body.environments).map(([env, value]) => [env, toggleOn(value)]));
  // Read alongside the feature.
  const environmentsRead = startEarly(environmentIds(auth.orgId));
  const changed = await changeFeature(
    auth.orgId,
    params.id,
    async (current) => {
      // publishFeatures is environment-scoped: a role limited to some environments toggles only those.
      assertCan(auth, toggleFeature.permission, current.project ? [current.project] : [], Object.keys(toggles));
      return applyToggle(current, toggles, await environmentsRead);
    },
    authorOf(auth, body.reason || 'Toggled via the REST API'),
  );
  const [feature] = await presentFeatures(auth.orgId, [changed], { environments: await environmentsRead });
  return { feature };
});
