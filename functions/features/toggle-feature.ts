import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { toggleFeature } from '../../shared/contracts/features';
import { applyToggle, authorOf, toggleOn } from '../../shared/domain/features';
import { changeFeature, startEnvironmentsRead } from '../../shared/store/features';
import { presentFeatures } from '../../shared/payload/definitions';

export const handler = endpoint(toggleFeature, async ({ params, body, auth }) => {
  const toggles = Object.fromEntries(Object.entries(body.environments).map(([env, value]) => [env, toggleOn(value)]));
  // Read once, alongside the feature: the write takes the environments' parents from it too.
  const environments = startEnvironmentsRead(auth.orgId);
  const changed = await changeFeature(
    auth.orgId,
    params.id,
    async (current) => {
      // publishFeatures is environment-scoped: a role limited to some environments toggles only those.
      assertCan(auth, toggleFeature.permission, current.project ? [current.project] : [], Object.keys(toggles));
      return applyToggle(current, toggles, await environments.ids());
    },
    authorOf(auth, body.reason || 'Toggled via the REST API'),
    { environments: environments.list },
  );
  const [feature] = await presentFeatures(auth.orgId, [changed], { environments: await environments.ids() });
  return { feature };
});
