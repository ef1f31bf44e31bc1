// Bayesian comparison: a Gaussian prior on the effect (relative by default), updated with the normal
// approximation of the effect estimate; chance to win, credible interval and risk come from the posterior.
import { normalCdf, normalPdf, normalProbabilityPositive, normalQuantile } from './distributions';
import { BASELINE_VARIATION_ZERO, type EffectMoments } from './effect-moments';

export interface GaussianPrior {
  mean: number;
  variance: number;
  /** A flat (improper) prior leaves the data's estimate unchanged. */
  proper: boolean;
}

export interface BayesianSettings {
  alpha: number;
  relative: boolean;
  inverse: boolean;
  /** Prior on the relative effect; for absolute effects it is rescaled by the baseline mean. */
  prior: GaussianPrior;
}

export interface BayesianOutcome {
  expected: number;
  ci: [number, number];
  uplift: { dist: 'normal'; mean: number; stddev: number };
  errorMessage: string | null;
  chanceToWin: number;
  risk: [number, number];
  riskType: 'relative' | 'absolute';
}

/** Uninformative result, as gbstats gives when the comparison cannot be made. */
export function bayesianDefault(errorMessage: string | null, relative: boolean): BayesianOutcome {
  return {
    expected: 0,
    ci: [0, 0],
    uplift: { dist: 'normal', mean: 0, stddev: 0 },
    errorMessage,
    chanceToWin: 0.5,
    risk: [0, 0],
    riskType: relative ? 'relative' : 'absolute',
  };
}

/**
 * Expected loss of shipping the baseline (the posterior mass above 0 times its mean there) and of shipping the
 * variation (the mass below 0), for an effect ~ Normal(mean, sd).
 */
export function normalRisk(mean: number, sd: number): [number, number] {
  const z = mean / sd;
  const density = sd * normalPdf(z, 0, 1);
  const riskBaseline = mean * normalCdf(z, 0, 1) + density;
  const riskVariation = density - mean * normalCdf(-z, 0, 1);
  return [riskBaseline, riskVariation];
}

/** Posterior of the effect given its estimate and the prior; `baselineMean` rescales a relative prior. */
export function bayesianTest(moments: EffectMoments, baselineMean: number, settings: BayesianSettings): BayesianOutcome {
  if (moments.errorMessage) return bayesianDefault(moments.errorMessage, settings.relative);
  let prior = settings.prior;
  if (!settings.relative) {
    if (prior.proper && baselineMean === 0) return bayesianDefault(BASELINE_VARIATION_ZERO, false);
    prior = { ...prior, mean: prior.mean * Math.abs(baselineMean), variance: prior.variance * baselineMean ** 2 };
  }
  const dataVariance = moments.standardError ** 2;
  const precision = 1 / dataVariance + (prior.proper ? 1 / prior.variance : 0);
  const mean = prior.proper
    ? (moments.pointEstimate / dataVariance + prior.mean / prior.variance) / precision
    : moments.pointEstimate;
  const sd = Math.sqrt(1 / precision);
  const chanceUp = normalProbabilityPositive(mean, sd);
  const [riskBaseline, riskVariation] = normalRisk(mean, sd);
  return {
    expected: mean,
    ci: [normalQuantile(settings.alpha / 2, mean, sd), normalQuantile(1 - settings.alpha / 2, mean, sd)],
    uplift: { dist: 'normal', mean, stddev: sd },
    errorMessage: null,
    // For an inverse metric (lower is better) winning means going down, and the two risks swap.
    chanceToWin: settings.inverse ? 1 - chanceUp : chanceUp,
    risk: settings.inverse ? [riskVariation, riskBaseline] : [riskBaseline, riskVariation],
    riskType: settings.relative ? 'relative' : 'absolute',
  };
}
