// Frequentist comparison: Welch t-tests (two-sided or one-sided) and, for sequential testing, the asymptotic
// confidence sequences of Waudby-Smith et al. (arXiv 2103.06476v7, eqs. 9, 155 and 161).
import { tCdf, tQuantile } from './distributions';
import { type EffectMoments } from './effect-moments';
import { type Statistic, variance } from './sufficient-statistics';

export const ALPHA_TOO_LARGE_FOR_SEQUENTIAL_ONE_SIDED = 'ALPHA_GREATER_THAN_0.5_FOR_SEQUENTIAL_ONE_SIDED_TEST';

export interface FrequentistSettings {
  alpha: number;
  oneSided: boolean;
  /** One-sided tests look for harm: for an inverse metric harm is an increase, otherwise a decrease. */
  inverse: boolean;
  sequential: boolean;
  sequentialTuningParameter: number;
}

export interface FrequentistOutcome {
  expected: number;
  ci: [number, number];
  uplift: { dist: 'normal'; mean: number; stddev: number };
  errorMessage: string | null;
  pValue: number;
  pValueErrorMessage: string | null;
}

/** Uninformative result, as gbstats gives when the comparison cannot be made. */
export function frequentistDefault(errorMessage: string | null, pValueErrorMessage: string | null = null): FrequentistOutcome {
  return {
    expected: 0,
    ci: [0, 0],
    uplift: { dist: 'normal', mean: 0, stddev: 0 },
    errorMessage,
    pValue: 1,
    pValueErrorMessage,
  };
}

/** Welch–Satterthwaite degrees of freedom for two samples with unequal variances. */
export function welchDegreesOfFreedom(varA: number, nA: number, varB: number, nB: number): number {
  const numerator = (varB / nB + varA / nA) ** 2;
  const denominator = varB ** 2 / (nB ** 2 * (nB - 1)) + varA ** 2 / (nA ** 2 * (nA - 1));
  return numerator / denominator;
}

/** Mixing parameter rho of the normal-mixture confidence sequence tuned to be tightest near `tuning` units. */
export function sequentialRho(alpha: number, tuning: number): number {
  const logTerm = -2 * Math.log(alpha);
  return Math.sqrt((logTerm + Math.log(logTerm + 1)) / tuning);
}

/** Half-width of the two-sided confidence sequence for a per-unit variance `s2` after `n` units. */
export function sequentialHalfwidth(s2: number, n: number, rho: number, alpha: number): number {
  const nr2 = n * rho ** 2;
  return Math.sqrt(s2) * Math.sqrt(((2 * (nr2 + 1)) / (n ** 2 * rho ** 2)) * Math.log(Math.sqrt(nr2 + 1) / alpha));
}

/** Half-width of the one-sided confidence sequence (rho tuned with 2·alpha). */
export function sequentialHalfwidthOneSided(s2: number, n: number, rho: number, alpha: number): number {
  const nr2 = n * rho ** 2;
  return Math.sqrt(s2 * ((2 * (nr2 + 1)) / (n * rho) ** 2) * Math.log(1 + Math.sqrt(nr2 + 1) / (2 * alpha)));
}

/** Runs the configured test on effect moments already computed for the pair (a = baseline, b = variation). */
export function frequentistTest(
  a: Statistic,
  b: Statistic,
  moments: EffectMoments,
  settings: FrequentistSettings,
): FrequentistOutcome {
  if (moments.errorMessage) return frequentistDefault(moments.errorMessage);
  const { pointEstimate: estimate, standardError: se } = moments;
  const n = a.n + b.n;
  // The one-sided test is significant when the effect is below the upper bound (`lesser`) or above the lower one.
  const lesser = !settings.inverse;
  let ci: [number, number];
  let pValue: number;
  if (settings.sequential) {
    const s2 = se ** 2 * n;
    if (settings.oneSided) {
      if (settings.alpha >= 0.5) return frequentistDefault(null, ALPHA_TOO_LARGE_FOR_SEQUENTIAL_ONE_SIDED);
      const rho = sequentialRho(2 * settings.alpha, settings.sequentialTuningParameter);
      const halfwidth = sequentialHalfwidthOneSided(s2, n, rho, settings.alpha);
      ci = lesser ? [-Infinity, estimate + halfwidth] : [estimate - halfwidth, Infinity];
      pValue = sequentialOneSidedPValue(estimate, s2, n, rho, lesser);
    } else {
      const rho = sequentialRho(settings.alpha, settings.sequentialTuningParameter);
      const halfwidth = sequentialHalfwidth(s2, n, rho, settings.alpha);
      ci = [estimate - halfwidth, estimate + halfwidth];
      pValue = sequentialTwoSidedPValue(estimate, se, n, rho);
    }
  } else {
    const dof = welchDegreesOfFreedom(variance(a), a.n, variance(b), b.n);
    const t = estimate / se;
    if (settings.oneSided) {
      const halfwidth = tQuantile(1 - settings.alpha, dof) * se;
      ci = lesser ? [-Infinity, estimate + halfwidth] : [estimate - halfwidth, Infinity];
      pValue = lesser ? tCdf(t, dof) : tCdf(-t, dof);
    } else {
      const halfwidth = tQuantile(1 - settings.alpha / 2, dof) * se;
      ci = [estimate - halfwidth, estimate + halfwidth];
      pValue = 2 * tCdf(-Math.abs(t), dof);
    }
  }
  return {
    expected: estimate,
    ci,
    uplift: { dist: 'normal', mean: estimate, stddev: se },
    errorMessage: null,
    pValue,
    pValueErrorMessage: null,
  };
}

/** Always-valid p-value: the inverse of the mixture e-value (eq. 155), capped at 1. */
function sequentialTwoSidedPValue(estimate: number, se: number, n: number, rho: number): number {
  const st2 = (estimate ** 2 * n) / se ** 2;
  const nr2p1 = n * rho ** 2 + 1;
  const eValue = Math.exp((rho ** 2 * st2) / (2 * nr2p1)) / Math.sqrt(nr2p1);
  return Math.min(1 / eValue, 1);
}

/**
 * One-sided always-valid p-value: the alpha at which the one-sided bound (with rho held fixed) reaches 0, solved in
 * closed form from the half-width, and kept within the [1e-5, 0.4999] range gbstats searches.
 */
export function sequentialOneSidedPValue(estimate: number, s2: number, n: number, rho: number, lesser: boolean): number {
  const [minAlpha, maxAlpha] = [1e-5, 0.4999];
  // On the wrong side of zero no alpha makes the bound cross zero.
  if (lesser ? estimate >= 0 : estimate <= 0) return maxAlpha;
  const nr2 = n * rho ** 2;
  const exponent = (estimate ** 2 * (n * rho) ** 2) / (2 * s2 * (nr2 + 1));
  const alpha = Math.sqrt(nr2 + 1) / (2 * Math.expm1(exponent));
  return Math.min(Math.max(alpha, minAlpha), maxAlpha);
}
