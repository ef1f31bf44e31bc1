import * as contract from '../contracts/fact-metrics';
import { type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import { buildFactMetric, factMetricInputAfter, redefined, storedTablesLookup } from '../domain/fact-metrics';
import { withOwner } from '../domain/owner';
import { paginated } from '../domain/pagination';
import { inProjectFilter } from '../domain/project-tags';
import { newId } from '../ids';
import { assertCan } from '../permissions';
import { factMetrics } from '../store/fact-metrics';
import { factTableLookup } from '../store/fact-tables';
import { ownerForCreate, resolveOwner } from '../store/members';
import { assertProjectsExist } from '../store/projects';
import { readableOr404, visibleTo } from './read-access';

/** `DELETE /fact-metrics/{id}`: delete a fact metric. */
export async function deleteFactMetric({
  params,
  auth,
}: UseCaseInput<typeof contract.deleteFactMetric>): UseCaseOutput<typeof contract.deleteFactMetric> {
  await factMetrics.remove(auth.orgId, params.id, (metric) => assertCan(auth, contract.deleteFactMetric.permission, metric.projects));
  return { deletedId: params.id };
}

/** `GET /fact-metrics/{id}`: get a fact metric. */
export async function getFactMetric({ params, auth }: UseCaseInput<typeof contract.getFactMetric>): UseCaseOutput<typeof contract.getFactMetric> {
  const factMetric = await factMetrics.get(auth.orgId, params.id);
  return { factMetric: readableOr404(auth, factMetric, factMetric.projects ?? [], 'Fact metric', params.id) };
}

/** `GET /fact-metrics`: list fact metrics. */
export async function listFactMetrics({
  query,
  auth,
}: UseCaseInput<typeof contract.listFactMetrics>): UseCaseOutput<typeof contract.listFactMetrics> {
  const tags = [
    ...(query.datasourceId ? [`datasource:${query.datasourceId}`] : []),
    ...inProjectFilter(query.projectId),
    ...(query.factTableId ? [`factTable:${query.factTableId}`] : []),
  ];
  return paginated('factMetrics', await factMetrics.list(auth.orgId, { limit: query.limit, offset: query.offset, tags, visible: visibleTo(auth) }), query);
}

/** `POST /fact-metrics`: create a fact metric. */
export async function postFactMetric({ body, auth }: UseCaseInput<typeof contract.postFactMetric>): UseCaseOutput<typeof contract.postFactMetric> {
  assertCan(auth, contract.postFactMetric.permission, body.projects);
  const draft = buildFactMetric(body, await factTableLookup(auth.orgId, [body.numerator, body.denominator]));
  await assertProjectsExist(auth.orgId, body.projects);
  const owner = await ownerForCreate(auth.orgId, body.owner, auth.memberId);
  const factMetric = await factMetrics.create(auth.orgId, {
    id: newId('fact__'),
    ...draft,
    ...owner,
  });
  return { factMetric };
}

/** `POST /fact-metrics/{id}`: partially update a fact metric. */
export async function updateFactMetric({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.updateFactMetric>): UseCaseOutput<typeof contract.updateFactMetric> {
  // The body's references are checked after the read, so an unknown metric is 404 first.
  const factMetric = await factMetrics.update(auth.orgId, params.id, async (current) => {
    // Only tables the body names are read; the sides it keeps were checked when they were stored.
    const named = await factTableLookup(auth.orgId, [body.numerator, body.denominator]);
    const stored = storedTablesLookup(current);
    await assertProjectsExist(auth.orgId, body.projects);
    const owner = body.owner !== undefined ? await resolveOwner(auth.orgId, body.owner) : undefined;
    assertCan(auth, contract.updateFactMetric.permission, current.projects);
    if (body.projects) assertCan(auth, contract.updateFactMetric.permission, body.projects);
    const draft = buildFactMetric(factMetricInputAfter(current, body), (id) => named(id) ?? stored(id));
    return withOwner(redefined(current, draft), owner);
  });
  return { factMetric };
}
