import type { FactMetric } from '../contracts/fact-metrics';
import type { Metric } from '../contracts/metrics';
import { repository } from '../db/repository';
import type { StoredFactTable } from '../domain/fact-tables';
import { factEquivalent, metricTags } from '../domain/metrics';
import { factMetrics } from './fact-metrics';
import { factTables } from './fact-tables';

/** Legacy SQL metrics (GrowthBook's `Metric`); lists filter on data source and project. */
export const metrics = repository<Metric>({ type: 'METRIC', label: 'Metric', listTags: metricTags });

/**
 * The metrics an analysis of `ids` reads, fact and legacy alike, and the fact tables they compute
 * from: a legacy metric comes as its fact equivalent (see `factEquivalent`). Ids that are neither are left out.
 */
export async function analysisMetrics(orgId: string, ids: string[]): Promise<{ metrics: FactMetric[]; factTables: StoredFactTable[] }> {
  const [facts, legacy] = await Promise.all([factMetrics.getMany(orgId, ids), metrics.getMany(orgId, ids)]);
  const tableIds = facts.flatMap((m) => [m.numerator.factTableId, ...(m.denominator ? [m.denominator.factTableId] : [])]);
  const equivalents = legacy.map(factEquivalent);
  return {
    metrics: [...facts, ...equivalents.map((e) => e.metric)],
    factTables: [...(await factTables.getMany(orgId, [...new Set(tableIds)])), ...equivalents.map((e) => e.factTable)],
  };
}
