import * as contract from '../contracts/dashboards';
import { allInOrder } from '../concurrency';
import { type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import { assertDashboardRules, blockReferences, newDashboard, updatedBlocks } from '../domain/dashboards';
import { assertCan } from '../permissions';
import { assertDashboardReferences, dashboardProjects, dashboards, dashboardsOf } from '../store/dashboards';
import { experiments } from '../store/experiments';

/** `POST /dashboards`: create a dashboard. */
export async function createDashboard({ body, auth }: UseCaseInput<typeof contract.createDashboard>): UseCaseOutput<typeof contract.createDashboard> {
  const data = newDashboard(body, auth.orgId, auth.memberId ?? '');
  const read = await assertDashboardReferences(auth.orgId, body, blockReferences(body.blocks));
  assertCan(auth, contract.createDashboard.permission, await dashboardProjects(auth.orgId, data, read));
  return { dashboard: await dashboards.create(auth.orgId, data) };
}

/** `DELETE /dashboards/{id}`: delete a dashboard. */
export async function deleteDashboard({
  params,
  auth,
}: UseCaseInput<typeof contract.deleteDashboard>): UseCaseOutput<typeof contract.deleteDashboard> {
  await dashboards.remove(auth.orgId, params.id, async (current) =>
    assertCan(auth, contract.deleteDashboard.permission, await dashboardProjects(auth.orgId, current)),
  );
  return { deletedId: params.id };
}

/** `GET /dashboards/{id}`: get a dashboard. */
export async function getDashboard({ params, auth }: UseCaseInput<typeof contract.getDashboard>): UseCaseOutput<typeof contract.getDashboard> {
  return { dashboard: await dashboards.get(auth.orgId, params.id) };
}

/** `GET /dashboards/by-experiment/{experimentId}`: list an experiment's dashboards. */
export async function getDashboardsForExperiment({
  params,
  auth,
}: UseCaseInput<typeof contract.getDashboardsForExperiment>): UseCaseOutput<typeof contract.getDashboardsForExperiment> {
  const [, dashboards] = await allInOrder([experiments.get(auth.orgId, params.experimentId), dashboardsOf(auth.orgId, params.experimentId)]);
  return { dashboards };
}

/** `GET /dashboards`: list dashboards. */
export async function listDashboards({ auth }: UseCaseInput<typeof contract.listDashboards>): UseCaseOutput<typeof contract.listDashboards> {
  return { dashboards: await dashboards.all(auth.orgId) };
}

/** `PUT /dashboards/{id}`: partially update a dashboard. */
export async function updateDashboard({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.updateDashboard>): UseCaseOutput<typeof contract.updateDashboard> {
  const dashboard = await dashboards.update(auth.orgId, params.id, async (current) => {
    assertCan(auth, contract.updateDashboard.permission, await dashboardProjects(auth.orgId, current));
    const { blocks, ...fields } = body;
    const next = { ...current, ...fields, ...(blocks ? { blocks: updatedBlocks(blocks, current.blocks, auth.orgId) } : {}) };
    assertDashboardRules(next);
    await assertDashboardReferences(auth.orgId, fields, blockReferences(blocks ?? []));
    if (fields.projects) assertCan(auth, contract.updateDashboard.permission, fields.projects);
    return next;
  });
  return { dashboard };
}
