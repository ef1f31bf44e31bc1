import type { MetricAnalysisResult } from '../contracts/metric-analyses';
import { metricAnalyses } from '../store/metric-analyses';

/*
 * How a metric analysis run ends, apart from its SQL and statistics so that the snapshot state machine's fail
 * function, which records failures only, bundles none of them.
 */

/** The id prefix of a metric analysis: the snapshot state machine runs one when its input names such an id. */
const METRIC_ANALYSIS_PREFIX = 'metan_';

/** Whether the snapshot state machine's input names a metric analysis rather than a snapshot. */
export const isMetricAnalysisId = (id: string): boolean => id.startsWith(METRIC_ANALYSIS_PREFIX);

/** The id of an analysis's one query, in the local run and in the state machine's plan. */
export const METRIC_ANALYSIS_QUERY_ID = 'metric_analysis';

/**
 * Records how a running metric analysis ended; does nothing when it has already ended (its timeout, or another
 * step of the run, got there first), so a late outcome never overwrites the first.
 */
export async function finishMetricAnalysis(
  orgId: string,
  analysisId: string,
  outcome: { status: 'success'; result: MetricAnalysisResult } | { status: 'error'; error: string },
): Promise<void> {
  const current = await metricAnalyses.find(orgId, analysisId);
  if (current?.status !== 'running') return;
  await metricAnalyses.update(orgId, analysisId, (analysis) => (analysis.status === 'running' ? { ...analysis, ...outcome } : analysis));
}

/** Marks a running metric analysis `error` with a message a user can act on. */
export async function failMetricAnalysis(orgId: string, analysisId: string, message: string): Promise<void> {
  await finishMetricAnalysis(orgId, analysisId, { status: 'error', error: message.slice(0, 4000) });
}
