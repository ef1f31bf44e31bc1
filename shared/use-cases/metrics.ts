import * as contract from '../contracts/metrics';
import { type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import { newMetric, updatedMetric } from '../domain/metrics';
import { withOwner } from '../domain/owner';
import { paginated } from '../domain/pagination';
import { inProjectFilter } from '../domain/project-tags';
import { newId } from '../ids';
import { assertCan } from '../permissions';
import { assertDataSourceReferences } from '../store/data-sources';
import { ownerForCreate, resolveOwner } from '../store/members';
import { metrics } from '../store/metrics';
import { assertProjectsExist } from '../store/projects';
import { readableOr404, visibleTo } from './read-access';

/** `GET /metrics`: list legacy SQL metrics. */
export async function listMetrics({ query, auth }: UseCaseInput<typeof contract.listMetrics>): UseCaseOutput<typeof contract.listMetrics> {
  const tags = [...(query.datasourceId ? [`datasource:${query.datasourceId}`] : []), ...inProjectFilter(query.projectId)];
  return paginated('metrics', await metrics.list(auth.orgId, { limit: query.limit, offset: query.offset, tags, visible: visibleTo(auth) }), query);
}

/** `POST /metrics`: create a legacy SQL metric. */
export async function postMetric({ body, auth }: UseCaseInput<typeof contract.postMetric>): UseCaseOutput<typeof contract.postMetric> {
  assertCan(auth, contract.postMetric.permission, body.projects ?? []);
  const draft = newMetric(newId('met_'), body, { owner: '' });
  await Promise.all([
    assertDataSourceReferences(auth.orgId, [{ datasource: { field: 'datasourceId', id: body.datasourceId } }]),
    assertProjectsExist(auth.orgId, body.projects),
  ]);
  const owner = await ownerForCreate(auth.orgId, body.owner, auth.memberId);
  return { metric: await metrics.create(auth.orgId, withOwner(draft, owner)) };
}

/** `GET /metrics/{id}`: get a legacy SQL metric. */
export async function getMetric({ params, auth }: UseCaseInput<typeof contract.getMetric>): UseCaseOutput<typeof contract.getMetric> {
  const metric = await metrics.get(auth.orgId, params.id);
  return { metric: readableOr404(auth, metric, metric.projects, 'Metric', params.id) };
}

/** `PUT /metrics/{id}`: change the fields given of a legacy SQL metric. */
export async function putMetric({ params, body, auth }: UseCaseInput<typeof contract.putMetric>): UseCaseOutput<typeof contract.putMetric> {
  await metrics.update(auth.orgId, params.id, async (current) => {
    readableOr404(auth, current, current.projects, 'Metric', params.id);
    assertCan(auth, contract.putMetric.permission, current.projects);
    if (body.projects) assertCan(auth, contract.putMetric.permission, body.projects);
    const next = updatedMetric(current, body);
    await assertProjectsExist(auth.orgId, body.projects);
    const owner = body.owner !== undefined ? await resolveOwner(auth.orgId, body.owner) : undefined;
    return withOwner(next, owner);
  });
  return { updatedId: params.id };
}

/** `DELETE /metrics/{id}`: delete a legacy SQL metric. */
export async function deleteMetric({ params, auth }: UseCaseInput<typeof contract.deleteMetric>): UseCaseOutput<typeof contract.deleteMetric> {
  await metrics.remove(auth.orgId, params.id, (metric) => {
    readableOr404(auth, metric, metric.projects, 'Metric', params.id);
    assertCan(auth, contract.deleteMetric.permission, metric.projects);
  });
  return { deletedId: params.id };
}
