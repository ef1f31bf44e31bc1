import type { ExperimentResults } from '../contracts/snapshots';
import { queryIdOf } from '../domain/queries';
import type { StoredMetricResult, StoredResultSummary } from '../store/snapshot-results';

// Apart from the statistics, so the results endpoint's bundle carries none of them.

/** GrowthBook's `ExperimentResults` from a snapshot's stored results. */
export function toExperimentResults(summary: StoredResultSummary, metrics: StoredMetricResult[]): ExperimentResults {
  const dimensionType = summary.dimension.startsWith('exp:') ? 'experiment' : summary.dimension.startsWith('pre:') ? 'date' : 'user';
  return {
    id: summary.snapshotId,
    dateUpdated: summary.dateUpdated,
    experimentId: summary.experimentId,
    phase: String(summary.phase),
    dateStart: summary.dateStart,
    dateEnd: summary.dateEnd,
    dimension: summary.dimension ? { type: dimensionType, id: summary.dimension } : { type: 'none' },
    settings: summary.settings as ExperimentResults['settings'],
    // The ids GET /queries/{id} answers for.
    queryIds: summary.queryIds.map((planId) => queryIdOf(summary.snapshotId, planId)),
    results: summary.dimensions.map((d) => ({
      dimension: d.dimension,
      totalUsers: d.totalUsers,
      checks: { srm: d.srm },
      metrics: metrics.map((m) => ({
        metricId: m.metricId,
        variations: (m.dimensions.find((md) => md.dimension === d.dimension)?.variations ?? []).map((v) => ({
          variationId: v.variationId,
          users: v.users,
          analyses: v.analyses as ExperimentResults['results'][number]['metrics'][number]['variations'][number]['analyses'],
        })),
      })),
    })),
  };
}
