import * as contract from '../contracts/experiment-results';
import { toExperimentResults } from '../analysis/experiment-results';
import { type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import { paginated } from '../domain/pagination';
import { experiments } from '../store/experiments';
import { readLatestPointers, readSnapshotResults } from '../store/snapshot-results';
import { visibleTo } from './read-access';

/**
 * `GET /experiments/results`: the latest overall results (latest phase, no dimension) of each
 * experiment on the page. Pagination runs over experiments, so a page may hold fewer results.
 */
export async function listExperimentResults({
  query,
  auth,
}: UseCaseInput<typeof contract.listExperimentResults>): UseCaseOutput<typeof contract.listExperimentResults> {
  const tags = [
    ...(query.projectId ? [`project:${query.projectId}`] : []),
    ...(query.datasourceId ? [`datasource:${query.datasourceId}`] : []),
    ...(query.trackingKey ? [`trackingKey:${query.trackingKey}`] : []),
    ...(query.status ? [`status:${query.status}`] : []),
  ];
  const page = await experiments.list(auth.orgId, { limit: query.limit, offset: query.offset, tags, visible: visibleTo(auth) });
  // Two reads per experiment (its pointers, then the results they name), all experiments side by side.
  const results = await Promise.all(
    page.items.map(async (experiment) => {
      if (!experiment.phases.length) return undefined;
      const latest = (await readLatestPointers(auth.orgId, experiment.id, '')).get(experiment.phases.length - 1);
      const stored = latest ? await readSnapshotResults(auth.orgId, latest.snapshotId) : undefined;
      return stored ? toExperimentResults(stored.summary, stored.metrics) : undefined;
    }),
  );
  const found = results.filter((result) => result !== undefined);
  return paginated('experimentResults', { items: found, total: page.total }, query);
}
