import { endpoint } from '../../shared/api/endpoint';
import { getFeature } from '../../shared/contracts/features';
import { featureAtRevision, toRevisionView } from '../../shared/domain/features';
import { environmentIds, features, latestFeatureRevisions } from '../../shared/store/features';
import { presentFeatures } from '../../shared/payload/definitions';

/** GrowthBook lists a feature's newest revisions only, ten of them, newest first. */
const REVISIONS_LISTED = 10;

export const handler = endpoint(getFeature, async ({ params, query, auth }) => {
  const wanted = query.withRevisions ?? 'none';
  // Every change is published at once, so there are never drafts: `all` and `published` list the same.
  const listed = wanted === 'all' || wanted === 'published';
  // Independent reads go out together: latency is one round trip, not three.
  const [stored, environments, revisions] = await Promise.all([
    features.get(auth.orgId, params.id),
    environmentIds(auth.orgId),
    listed ? latestFeatureRevisions(auth.orgId, params.id, REVISIONS_LISTED) : [],
  ]);
  // One presentation for the feature and its revisions, so the references they name are read once.
  const asServed = revisions.map((revision) => featureAtRevision(stored, revision, environments));
  const [feature, ...served] = await presentFeatures(auth.orgId, [stored, ...asServed], { environments });
  if (wanted === 'none') return { feature };
  return { feature: { ...feature, revisions: revisions.map((revision, i) => toRevisionView(revision, served[i]!, environments)) } };
});
