import { endpoint } from '../../shared/api/endpoint';
import { InvalidInputError } from '../../shared/errors';
import { paginated } from '../../shared/domain/pagination';
import { listExperiments } from '../../shared/contracts/experiments';
import { experiments } from '../../shared/store/experiments';

export const handler = endpoint(listExperiments, async ({ query, auth }) => {
  if (query.experimentId && query.trackingKey) {
    throw new InvalidInputError('Querystring: [experimentId] is the old name of trackingKey; give only one of them');
  }
  const trackingKey = query.trackingKey ?? query.experimentId;
  const tags = [
    ...(query.projectId ? [`project:${query.projectId}`] : []),
    ...(query.datasourceId ? [`datasource:${query.datasourceId}`] : []),
    ...(trackingKey ? [`trackingKey:${trackingKey}`] : []),
    ...(query.status ? [`status:${query.status}`] : []),
  ];
  return paginated('experiments', await experiments.list(auth.orgId, { ...query, tags }), query);
});
