import { metricAnalyses } from '../store/metric-analyses';
import { metricAnalysisResult } from './metric-analysis';
import { finishMetricAnalysis } from './metric-analysis-outcome';

/**
 * Stores a running metric analysis's result from its query's rows, as the snapshot state machine's analyse step
 * reads them from Athena (numbers as numbers, the overall row's `day` null).
 */
export async function analyseMetricAnalysis(orgId: string, analysisId: string, rows: Record<string, unknown>[]): Promise<void> {
  const analysis = await metricAnalyses.get(orgId, analysisId);
  const type = analysis.proportion ? 'proportion' : analysis.ratio ? 'ratio' : 'mean';
  await finishMetricAnalysis(orgId, analysisId, { status: 'success', result: metricAnalysisResult(rows, { type }, analysis.ratio) });
}
