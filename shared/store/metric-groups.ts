import type { MetricGroup } from '../contracts/metric-groups';
import { assertMetrics } from './experiments';
import { projects } from './projects';
import { assertReferences, repository } from '../db/repository';

export const metricGroups = repository<MetricGroup>({ type: 'METRIC_GROUP', label: 'Metric group' });

/** Raises 400 naming the field unless every project exists and every metric exists and computes from `datasource`. */
export async function assertMetricGroupReferences(orgId: string, group: Pick<MetricGroup, 'projects' | 'metrics' | 'datasource'>): Promise<void> {
  await Promise.all([
    assertReferences(orgId, projects, group.projects.map((id, i) => ({ field: `projects.${i}`, id }))),
    assertMetrics(orgId, group.metrics.map((id, i) => ({ field: `metrics.${i}`, id })), group.datasource),
  ]);
}
