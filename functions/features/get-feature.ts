import { endpoint } from '../../shared/api/endpoint';
import { getFeature } from '../../shared/contracts/features';
import { environmentIds, featureRevisions, features, presentFeatures } from '../../shared/store/features';

export const handler = endpoint(getFeature, async ({ params, query, auth }) => {
  // Independent reads go out together: latency is one round trip, not two.
  const [stored, environments] = await Promise.all([features.get(auth.orgId, params.id), environmentIds(auth.orgId)]);
  const [feature] = await presentFeatures(auth.orgId, [stored], { environments });
  const wanted = query.withRevisions ?? 'none';
  if (wanted === 'none') return { feature };
  // Every change is published at once, so there are never drafts.
  const revisions = wanted === 'drafts' ? [] : await featureRevisions(auth.orgId, params.id);
  return { feature: { ...feature, revisions } };
});
