import { endpoint } from '../../shared/api/endpoint';
import { getFeatureKeys } from '../../shared/contracts/features';
import { featureIds } from '../../shared/store/features';
import { visibleTo } from '../../shared/use-cases/read-access';

export const handler = endpoint(getFeatureKeys, async ({ query, auth }) =>
  featureIds(auth.orgId, { all: query.projectId ? [`project:${query.projectId}`] : [], visible: visibleTo(auth) }),
);
