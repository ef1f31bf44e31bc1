// The per-variation `analyses[]` entry of GrowthBook's ExperimentResults, from one variation's statistics.
import { type VariationResultIndividual } from './analyse-metric';

export interface ApiVariationAnalysis {
  engine: 'bayesian' | 'frequentist';
  numerator: number;
  denominator: number;
  mean: number;
  stddev: number;
  percentChange: number;
  ciLow: number;
  ciHigh: number;
  pValue?: number;
  risk?: number;
  chanceToBeatControl?: number;
}

/** NaN, ±Infinity and missing numbers become 0, as GrowthBook's API does (a one-sided interval's open end too). */
export function finiteOrZero(value: number | null | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/**
 * Maps a variation result to the API's analysis entry: `numerator` is the summed value, `denominator` the ratio
 * denominator or else the users, `percentChange` the expected effect (a fraction), and `pValue` (frequentist) or
 * `chanceToBeatControl` and `risk` (Bayesian; the risk of choosing the variation). The baseline has no effect: 0s.
 */
export function toApiAnalysis(variation: VariationResultIndividual, engine: 'bayesian' | 'frequentist'): ApiVariationAnalysis {
  const analysis: ApiVariationAnalysis = {
    engine,
    numerator: finiteOrZero(variation.value),
    denominator: finiteOrZero(variation.denominator || variation.users),
    mean: finiteOrZero(variation.stats.mean),
    stddev: finiteOrZero(variation.stats.stddev),
    percentChange: 0,
    ciLow: 0,
    ciHigh: 0,
  };
  if (!('expected' in variation)) return analysis;
  analysis.percentChange = finiteOrZero(variation.expected);
  analysis.ciLow = finiteOrZero(variation.ci[0]);
  analysis.ciHigh = finiteOrZero(variation.ci[1]);
  if ('pValue' in variation) analysis.pValue = finiteOrZero(variation.pValue);
  if ('chanceToWin' in variation) {
    analysis.chanceToBeatControl = finiteOrZero(variation.chanceToWin);
    analysis.risk = finiteOrZero(variation.risk[1]);
  }
  return analysis;
}
