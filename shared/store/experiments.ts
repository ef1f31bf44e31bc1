import { ConflictError, InvalidInputError } from '../errors';
import type { Experiment, PostExperimentBody } from '../contracts/experiments';
import { dataSourceReference } from '../domain/data-sources';
import { metricReferences, phaseReferences } from '../domain/experiments';
import { assertDataSourceReferences } from './data-sources';
import { factMetrics } from './fact-metrics';
import { metrics } from './metrics';
import { projects } from './projects';
import { prepareTouch } from '../payload/write';
import { assertReferences, repository, type Reference } from '../db/repository';
import { savedGroups } from './saved-groups';
import { segments } from './segments';

/**
 * Experiments; lists filter on project, datasource, tracking key, status and the namespaces their phases use. Organizations may
 * hold thousands, so unfiltered pages use the page index.
 */
export const experiments = repository<Experiment>({
  type: 'EXPERIMENT',
  label: 'Experiment',
  pageIndex: true,
  // SDK payloads build experiment rules from the experiment's latest phase.
  touch: (orgId, { id }) => [prepareTouch(orgId, id)],
  listTags: (experiment) => [
    `project:${experiment.project}`,
    `datasource:${experiment.settings.datasourceId}`,
    `trackingKey:${experiment.trackingKey}`,
    `status:${experiment.status}`,
    // The namespaces its phases use, so deleting a namespace in use is refused with one query.
    ...new Set(experiment.phases.flatMap((phase) => (phase.namespace ? [`namespace:${phase.namespace.namespaceId}`] : []))),
  ],
});

/**
 * Raises 400 unless every metric named exists and computes from `datasource`, as the experiment
 * (or template) analysing it does.
 */
export async function assertMetrics(orgId: string, references: Reference[], datasource: string): Promise<void> {
  if (references.length === 0) return;
  const ids = references.map((r) => r.id);
  // A legacy SQL metric may be named wherever a fact metric may.
  const [facts, legacy] = await Promise.all([factMetrics.getMany(orgId, ids), metrics.getMany(orgId, ids)]);
  const found = new Map([...facts, ...legacy.map((m) => ({ ...m, datasource: m.datasourceId }))].map((m) => [m.id, m]));
  for (const { field, id } of references) {
    const metric = found.get(id);
    if (!metric) throw new InvalidInputError(`Request body: [${field}] no fact metric has the id ${id}`);
    if (metric.datasource !== datasource) {
      const kind = facts.some((f) => f.id === id) ? 'fact metric' : 'metric';
      throw new InvalidInputError(`Request body: [${field}] ${kind} ${id} uses datasource ${metric.datasource}, not ${datasource}`);
    }
  }
}

/** Raises 409 when another experiment of the organization already uses `trackingKey`. */
export async function assertTrackingKeyFree(orgId: string, trackingKey: string): Promise<void> {
  const { total } = await experiments.list(orgId, { limit: 1, offset: 0, tags: [`trackingKey:${trackingKey}`] });
  if (total > 0) {
    throw new ConflictError(
      'already_exists',
      `Request body: [trackingKey] an experiment with the tracking key ${trackingKey} already exists; set bypassDuplicateKeyCheck to allow it`,
    );
  }
}

type ReferencingFields = Pick<
  PostExperimentBody,
  | 'project'
  | 'phases'
  | 'segmentId'
  | 'metrics'
  | 'secondaryMetrics'
  | 'guardrailMetrics'
  | 'activationMetric'
  | 'metricOverrides'
  | 'datasourceId'
  | 'assignmentQueryId'
>;

/**
 * Checks what an experiment create or update body names, against the experiment's analysis
 * settings after the change: 400 naming the first missing one. The data source is read only when
 * the body names it or its assignment query. The handlers check `defaultDashboardId` and
 * prerequisite features themselves, because those stores depend on this one.
 */
export async function assertExperimentReferences(
  orgId: string,
  body: Partial<ReferencingFields>,
  settings: { datasourceId: string; assignmentQueryId: string },
): Promise<void> {
  const datasource = settings.datasourceId;
  const named = body.datasourceId !== undefined || body.assignmentQueryId !== undefined;
  const reference = named
    ? dataSourceReference(
        { datasource: settings.datasourceId, query: settings.assignmentQueryId },
        { datasource: 'datasourceId', query: 'assignmentQueryId' },
      )
    : undefined;
  await Promise.all([
    assertDataSourceReferences(orgId, reference ? [reference] : []),
    assertReferences(orgId, projects, body.project ? [{ field: 'project', id: body.project }] : []),
    assertReferences(orgId, savedGroups, phaseReferences(body.phases).savedGroups),
    assertReferences(orgId, segments, body.segmentId ? [{ field: 'segmentId', id: body.segmentId }] : []),
    assertMetrics(orgId, metricReferences(body), datasource),
  ]);
}
