import { endpoint } from '../../shared/api/endpoint';
import { getFeature } from '../../shared/contracts/features';
import { featureRevisions, features, presentFeatures } from '../../shared/store/features';

export const handler = endpoint(getFeature, async ({ params, query, auth }) => {
  const [feature] = await presentFeatures(auth.orgId, [await features.get(auth.orgId, params.id)]);
  const wanted = query.withRevisions ?? 'none';
  if (wanted === 'none') return { feature };
  // Every change is published at once, so there are never drafts.
  const revisions = wanted === 'drafts' ? [] : await featureRevisions(auth.orgId, params.id);
  return { feature: { ...feature, revisions } };
});
