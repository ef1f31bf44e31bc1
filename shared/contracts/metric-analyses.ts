import * as z from './zod';
import { defineEndpoint } from './spec';
import { idParams } from './common';

// GrowthBook's postFactMetricAnalysis: a fact metric's values over the last days, across every unit of its fact table.

const filterIds = z.array(z.string().check(z.minLength(1), z.maxLength(256))).check(z.maxLength(100));

const analysisBody = z.strictObject({
  userIdType: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
  lookbackDays: z.optional(z.number().check(z.gte(1), z.lte(999999))),
  populationType: z.optional(z.enum(['factTable', 'segment'])),
  populationId: z.optional(z.nullable(z.string())),
  additionalNumeratorFilters: z.optional(filterIds),
  additionalDenominatorFilters: z.optional(filterIds),
  useCache: z.optional(z.boolean()),
});
export type MetricAnalysisBody = z.infer<typeof analysisBody>;

/** What an analysis computes over, as GrowthBook's MetricAnalysisSettings (dates as ISO strings). */
export interface MetricAnalysisSettings {
  userIdType: string;
  startDate: string;
  endDate: string;
  lookbackDays: number;
  populationType: 'factTable' | 'segment';
  populationId: string | null;
  additionalNumeratorFilters?: string[];
  additionalDenominatorFilters?: string[];
}

/** The metric's value over a set of units: their count, the mean (numerator / denominator for a ratio, else per unit) and its standard deviation. */
export interface MetricAnalysisValue {
  units: number;
  mean: number;
  stddev: number;
  numerator: number;
  denominator?: number;
}

/** GrowthBook's MetricAnalysisResult: the whole window, and each day (units active that day, their values that day). */
export interface MetricAnalysisResult extends MetricAnalysisValue {
  dates: (MetricAnalysisValue & { date: string })[];
}

/** A metric analysis as stored: the frozen SQL it ran, its status and, once it succeeded, its result. */
export interface StoredMetricAnalysis {
  id: string;
  metric: string;
  datasource: string;
  status: 'running' | 'success' | 'error';
  settings: MetricAnalysisSettings;
  engine: 'duckdb' | 'athena';
  sql: string;
  /** What the result is computed as: a ratio divides the numerator's sum by the denominator's. */
  ratio: boolean;
  /** What the result is computed as: a proportion's standard deviation is a Bernoulli's, from its mean. */
  proportion: boolean;
  error?: string;
  result?: MetricAnalysisResult;
  dateCreated: string;
  dateUpdated: string;
}

export const postFactMetricAnalysis = defineEndpoint({
  operationId: 'postFactMetricAnalysis',
  method: 'POST',
  path: '/fact-metrics/{id}/analysis',
  summary: 'Create a fact metric analysis',
  tag: 'fact-metrics',
  permission: 'runQueries',
  projectScoped: true,
  params: idParams,
  body: analysisBody,
  response: z.object({
    metricAnalysis: z.object({ id: z.string(), status: z.string(), settings: z.optional(z.record(z.string(), z.unknown())) }),
  }),
});

export const metricAnalysisEndpoints = [postFactMetricAnalysis];
