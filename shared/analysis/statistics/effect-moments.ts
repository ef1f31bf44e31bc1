// Point estimate and standard error of the effect of a variation against the baseline: the difference of means
// (absolute) or that difference over the baseline mean (relative, by the delta method).
import {
  type AdjustedMeanStatistic,
  type AdjustedRatioStatistic,
  type Statistic,
  adjustedRatioCovarianceMatrix,
  adjustedRatioGradient,
  baseMean,
  baseVariance,
  covariance,
  hasZeroVariance,
  mean,
  quadraticForm,
  unadjustedMean,
  variance,
  varianceOfRatio,
} from './sufficient-statistics';

/** gbstats' error codes, shown by GrowthBook in place of a result. */
export const ZERO_NEGATIVE_VARIANCE = 'ZERO_NEGATIVE_VARIANCE';
export const BASELINE_VARIATION_ZERO = 'ZERO_NEGATIVE_BASELINE_VARIATION';

export interface EffectMoments {
  pointEstimate: number;
  standardError: number;
  errorMessage: string | null;
}

/** Effect of `b` (variation) over `a` (baseline); both must already carry their CUPED coefficient. */
export function effectMoments(a: Statistic, b: Statistic, relative: boolean): EffectMoments {
  const effectVariance = varianceOfEffect(a, b, relative);
  if (hasZeroVariance(a) || hasZeroVariance(b) || effectVariance <= 0) return failed(ZERO_NEGATIVE_VARIANCE);
  if (mean(a) === 0 || unadjustedMean(a) === 0) return failed(BASELINE_VARIATION_ZERO);
  if (!Number.isFinite(effectVariance)) return failed(ZERO_NEGATIVE_VARIANCE);
  const difference = mean(b) - mean(a);
  // Relative effects are over the baseline's measured (unadjusted) mean, so CUPED only narrows the interval.
  return {
    pointEstimate: relative ? difference / unadjustedMean(a) : difference,
    standardError: Math.sqrt(effectVariance),
    errorMessage: null,
  };
}

function failed(errorMessage: string): EffectMoments {
  return { pointEstimate: 0, standardError: 0, errorMessage };
}

/** Variance of the effect estimate (not per unit: already divided by the sample sizes). */
export function varianceOfEffect(a: Statistic, b: Statistic, relative: boolean): number {
  if (relative && a.kind === 'adjusted_mean' && b.kind === 'adjusted_mean') return relativeAdjustedMeanVariance(a, b);
  if (relative && a.kind === 'adjusted_ratio' && b.kind === 'adjusted_ratio') return relativeAdjustedRatioVariance(a, b);
  const varA = variance(a) / a.n;
  const varB = variance(b) / b.n;
  if (!relative) return varA + varB;
  // Var(B / A) with independent variations.
  return varianceOfRatio(unadjustedMean(b), varB, unadjustedMean(a), varA, 0);
}

/**
 * Relative CUPED effect (Yb - θXb - Ya + θXa) / Ya: the variation contributes its adjusted variance over Ya²;
 * the baseline contributes through Ya (gradient -Yb/Ya²) and Xa (gradient θ/Ya).
 */
function relativeAdjustedMeanVariance(a: AdjustedMeanStatistic, b: AdjustedMeanStatistic): number {
  const ya = baseMean(a.post);
  if (ya === 0) return 0;
  const theta = a.theta;
  const variationPart = variance(b) / (b.n * ya ** 2);
  const gradY = -baseMean(b.post) / ya ** 2;
  const gradX = theta / ya;
  const baselinePart =
    (gradY ** 2 * baseVariance(a.post) +
      2 * gradY * gradX * covariance(a.n, a.post, a.pre, a.postPreProducts) +
      gradX ** 2 * baseVariance(a.pre)) /
    a.n;
  return variationPart + baselinePart;
}

/**
 * Relative CUPED ratio effect: (Rb - Ra) / |ra| where R is the adjusted ratio and ra the baseline's unadjusted
 * ratio. Each variation contributes gradient' Σ gradient / n over its four means.
 */
function relativeAdjustedRatioVariance(a: AdjustedRatioStatistic, b: AdjustedRatioStatistic): number {
  const scale = Math.abs(unadjustedMean(a));
  const dPostA = baseMean(a.denominatorPost);
  if (scale === 0 || dPostA === 0) return 0;
  const absoluteEffect = mean(b) - mean(a);
  const mPostA = baseMean(a.numeratorPost);
  const ownA = adjustedRatioGradient(a, a.theta);
  // The baseline's post ratio is both in the difference and in the denominator of the relative effect.
  const gradA = [
    -(scale + absoluteEffect) / dPostA / scale ** 2,
    ((mPostA * (scale + absoluteEffect)) / dPostA ** 2) / scale ** 2,
    -ownA[2] / scale,
    -ownA[3] / scale,
  ];
  const gradB = adjustedRatioGradient(b, b.theta).map((x) => x / scale);
  return (
    quadraticForm(gradA, adjustedRatioCovarianceMatrix(a), gradA) / a.n +
    quadraticForm(gradB, adjustedRatioCovarianceMatrix(b), gradB) / b.n
  );
}
