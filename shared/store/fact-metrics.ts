import type { FactMetric } from '../contracts/fact-metrics';
import { factMetricTags } from '../domain/fact-metrics';
import { repository } from '../db/repository';

export const factMetrics = repository<FactMetric>({ type: 'FACT_METRIC', label: 'Fact metric', listTags: factMetricTags });
