import * as contract from '../contracts/metric-groups';
import { type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import { newId } from '../ids';
import { assertMetricGroupReferences, metricGroups } from '../store/metric-groups';
import { readableBy, readableOr404 } from './read-access';

/** `POST /metric-groups`: create a metric group. */
export async function createMetricGroup({
  body,
  auth,
}: UseCaseInput<typeof contract.createMetricGroup>): UseCaseOutput<typeof contract.createMetricGroup> {
  await assertMetricGroupReferences(auth.orgId, body);
  const metricGroup = await metricGroups.create(auth.orgId, {
    ...body,
    id: newId('mg_'),
    tags: body.tags ?? [],
    owner: auth.memberId ?? '',
    archived: false,
  });
  return { metricGroup };
}

/** `DELETE /metric-groups/{id}`: delete a metric group. */
export async function deleteMetricGroup({
  params,
  auth,
}: UseCaseInput<typeof contract.deleteMetricGroup>): UseCaseOutput<typeof contract.deleteMetricGroup> {
  await metricGroups.remove(auth.orgId, params.id);
  return { deletedId: params.id };
}

/** `GET /metric-groups/{id}`: get a metric group. */
export async function getMetricGroup({ params, auth }: UseCaseInput<typeof contract.getMetricGroup>): UseCaseOutput<typeof contract.getMetricGroup> {
  const metricGroup = await metricGroups.get(auth.orgId, params.id);
  return { metricGroup: readableOr404(auth, metricGroup, metricGroup.projects ?? [], 'Metric group', params.id) };
}

/** `GET /metric-groups`: list metric groups. */
export async function listMetricGroups({ auth }: UseCaseInput<typeof contract.listMetricGroups>): UseCaseOutput<typeof contract.listMetricGroups> {
  return { metricGroups: readableBy(auth, await metricGroups.all(auth.orgId), (group) => group.projects ?? []) };
}

/** `PUT /metric-groups/{id}`: update a metric group. */
export async function updateMetricGroup({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.updateMetricGroup>): UseCaseOutput<typeof contract.updateMetricGroup> {
  const metricGroup = await metricGroups.update(auth.orgId, params.id, async (current) => {
    const next = { ...current, ...body };
    // A new datasource re-checks every metric; otherwise only what the body names.
    const datasourceChanged = body.datasource !== undefined && body.datasource !== current.datasource;
    await assertMetricGroupReferences(auth.orgId, {
      projects: body.projects ?? [],
      metrics: body.metrics ?? (datasourceChanged ? next.metrics : []),
      datasource: next.datasource,
    });
    return next;
  });
  return { metricGroup };
}
