import * as contract from '../contracts/dashboards';
import { allInOrder } from '../concurrency';
import { type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import { assertDashboardRules, blockReferences, newDashboard, updatedBlocks } from '../domain/dashboards';
import { assertCan, canRead, readsEverywhere } from '../permissions';
import { assertDashboardReferences, dashboardProjects, dashboards, dashboardsOf } from '../store/dashboards';
import { experiments } from '../store/experiments';
import { projectOf, readableOr404 } from './read-access';

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
  const dashboard = await dashboards.get(auth.orgId, params.id);
  // A caller who reads every project may read it wherever it is: no need to read its experiment's project.
  if (readsEverywhere(auth)) return { dashboard };
  return { dashboard: readableOr404(auth, dashboard, await dashboardProjects(auth.orgId, dashboard), 'Dashboard', params.id) };
}

/** `GET /dashboards/by-experiment/{experimentId}`: list an experiment's dashboards. */
export async function getDashboardsForExperiment({
  params,
  auth,
}: UseCaseInput<typeof contract.getDashboardsForExperiment>): UseCaseOutput<typeof contract.getDashboardsForExperiment> {
  const [experiment, dashboards] = await allInOrder([experiments.get(auth.orgId, params.experimentId), dashboardsOf(auth.orgId, params.experimentId)]);
  readableOr404(auth, experiment, projectOf(experiment), 'Experiment', params.experimentId);
  return { dashboards };
}

/** `GET /dashboards`: list dashboards. */
export async function listDashboards({ auth }: UseCaseInput<typeof contract.listDashboards>): UseCaseOutput<typeof contract.listDashboards> {
  const all = await dashboards.all(auth.orgId);
  if (readsEverywhere(auth)) return { dashboards: all };
  // An experiment's dashboard is in the experiment's project: read those experiments once.
  const linked = await experiments.getMany(auth.orgId, all.flatMap((dashboard) => (dashboard.experimentId ? [dashboard.experimentId] : [])));
  const byId = new Map(linked.map((experiment) => [experiment.id, experiment]));
  const projects = await Promise.all(all.map((dashboard) => dashboardProjects(auth.orgId, dashboard, byId)));
  return { dashboards: all.filter((_, i) => canRead(auth, projects[i]!)) };
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
