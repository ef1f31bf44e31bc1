import { InvalidInputError } from '../errors';
import type { Dashboard } from '../contracts/dashboards';
import type { Experiment } from '../contracts/experiments';
import type { BlockReferences } from '../domain/dashboards';
import { experiments } from './experiments';
import { factMetrics } from './fact-metrics';
import { projects } from './projects';
import { assertReferences, repository } from '../db/repository';
import { snapshots } from './snapshots';

export const dashboards = repository<Dashboard>({
  type: 'DASHBOARD',
  label: 'Dashboard',
  listTags: (dashboard) => (dashboard.experimentId ? [`experiment:${dashboard.experimentId}`] : []),
});

/** Every dashboard of one experiment, in creation order (a Query on the list index). */
export async function dashboardsOf(orgId: string, experimentId: string): Promise<Dashboard[]> {
  return dashboards.allTagged(orgId, [`experiment:${experimentId}`]);
}

/**
 * Checks what a dashboard names: its experiment and projects, and its blocks' experiments (with
 * the variations they pick), snapshots (which must be of the block's experiment) and metrics.
 * Returns the experiments it read, by id.
 */
export async function assertDashboardReferences(
  orgId: string,
  fields: { experimentId?: string; projects?: string[] },
  blocks: BlockReferences,
): Promise<Map<string, Experiment>> {
  const experimentIds = [...(fields.experimentId ? [fields.experimentId] : []), ...blocks.experiments.map((e) => e.id)];
  const [found, foundSnapshots] = await Promise.all([
    experiments.getMany(orgId, experimentIds),
    snapshots.getMany(orgId, blocks.snapshots.map((s) => s.id)),
    assertReferences(orgId, projects, (fields.projects ?? []).map((id, i) => ({ field: `projects.${i}`, id }))),
    assertReferences(orgId, factMetrics, blocks.metrics),
  ]);
  const byId = new Map(found.map((experiment) => [experiment.id, experiment]));
  const missing = (field: string, id: string) => new InvalidInputError(`Request body: [${field}] no experiment has the id ${id}`);
  if (fields.experimentId && !byId.has(fields.experimentId)) throw missing('experimentId', fields.experimentId);
  for (const reference of blocks.experiments) {
    const experiment = byId.get(reference.id);
    if (!experiment) throw missing(reference.field, reference.id);
    const unknown = reference.variationIds.find((v) => !experiment.variations.some((own) => own.variationId === v.id));
    if (unknown) throw new InvalidInputError(`Request body: [${unknown.field}] experiment ${experiment.id} has no variation ${unknown.id}`);
  }
  const snapshotsById = new Map(foundSnapshots.map((snapshot) => [snapshot.id, snapshot]));
  for (const reference of blocks.snapshots) {
    const snapshot = snapshotsById.get(reference.id);
    if (!snapshot) throw new InvalidInputError(`Request body: [${reference.field}] no snapshot has the id ${reference.id}`);
    if (snapshot.experiment !== reference.experimentId) {
      throw new InvalidInputError(`Request body: [${reference.field}] snapshot ${reference.id} is of experiment ${snapshot.experiment}`);
    }
  }
  return byId;
}

/**
 * The projects whose permissions guard a dashboard: its experiment's project, or its own projects.
 * The experiment is taken from `known` when already read.
 */
export async function dashboardProjects(
  orgId: string,
  dashboard: Pick<Dashboard, 'experimentId' | 'projects'>,
  known?: Map<string, Experiment>,
): Promise<string[]> {
  if (!dashboard.experimentId) return dashboard.projects ?? [];
  const experiment = known?.get(dashboard.experimentId) ?? (await experiments.find(orgId, dashboard.experimentId));
  return experiment?.project ? [experiment.project] : [];
}
