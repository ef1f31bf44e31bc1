// Per-variation sufficient statistics (sums, sums of squares, cross products) and the moments derived from them.
// Proportions use the Bernoulli variance p(1-p); everything else uses the unbiased sample variance.

/** One column of per-unit values: a proportion (0/1 values) or a general mean. */
export type BaseStatistic =
  | { kind: 'proportion'; n: number; sum: number }
  | { kind: 'sample_mean'; n: number; sum: number; sumSquares: number };

/** Ratio of two per-unit sums (e.g. revenue per session), with the delta-method variance. */
export interface RatioStatistic {
  kind: 'ratio';
  n: number;
  numerator: BaseStatistic;
  denominator: BaseStatistic;
  numeratorDenominatorProducts: number;
}

/** CUPED on a mean: the post-exposure value adjusted by `theta` times the pre-exposure covariate. */
export interface AdjustedMeanStatistic {
  kind: 'adjusted_mean';
  n: number;
  post: BaseStatistic;
  pre: BaseStatistic;
  postPreProducts: number;
  theta: number;
}

/** CUPED on a ratio: post ratio adjusted by `theta` times the pre-period ratio. */
export interface AdjustedRatioStatistic {
  kind: 'adjusted_ratio';
  n: number;
  numeratorPost: BaseStatistic;
  denominatorPost: BaseStatistic;
  numeratorPre: BaseStatistic;
  denominatorPre: BaseStatistic;
  /** Cross products, named after the two columns they multiply. */
  products: {
    numeratorPostDenominatorPost: number;
    numeratorPostNumeratorPre: number;
    numeratorPostDenominatorPre: number;
    denominatorPostNumeratorPre: number;
    denominatorPostDenominatorPre: number;
    numeratorPreDenominatorPre: number;
  };
  theta: number;
}

/**
 * A quantile `nu` of `n` values (units, or events for event quantiles) estimated as `hat`, with the values at the
 * quantile levels of its confidence interval for a sample of `nStar` (`lower`, `upper`). Event quantiles also carry
 * the per-unit sums that correct the variance for events clustered in units.
 */
export interface QuantileStatistic {
  kind: 'quantile';
  n: number;
  nStar: number;
  nu: number;
  hat: number;
  lower: number;
  upper: number;
  clusters?: { units: number; main: BaseStatistic; events: BaseStatistic; mainEventsProducts: number };
}

export type Statistic = BaseStatistic | RatioStatistic | AdjustedMeanStatistic | AdjustedRatioStatistic | QuantileStatistic;

/** The 97.5th percentile of the standard normal, to which quantile intervals are built. */
const Z_975 = 1.959963984540054;

/** Per-value variance of a quantile estimate, from the width of its interval (the order-statistic method). */
function quantileVariance(s: QuantileStatistic): number {
  if (s.n <= 1) return 0;
  const iid = (s.nStar / s.n) * (s.n - 1) * ((s.upper - s.lower) / (2 * Z_975)) ** 2;
  if (!s.clusters) return iid;
  // Clustered events: scale by the variance of the share of events below the quantile, clustered over iid.
  const { units, main, events, mainEventsProducts } = s.clusters;
  if (s.nu === 0 || units <= 1 || events.sum <= 0) return 0;
  const muS = main.sum / units;
  const muN = events.sum / units;
  const scale = units / (units - 1);
  const varS = (sumSquares(main) / units - muS * muS) * scale;
  const varN = (sumSquares(events) / units - muN * muN) * scale;
  const covSN = (mainEventsProducts / units - muS * muN) * scale;
  const clustered = (varS - (2 * muS * covSN) / muN + (muS ** 2 * varN) / muN ** 2) / (units * muN ** 2);
  return (iid * clustered) / ((s.nu * (1 - s.nu)) / s.n);
}

const sumSquares = (s: BaseStatistic) => (s.kind === 'proportion' ? s.sum : s.sumSquares);

/**
 * Whether a comparison with this statistic cannot be made: no variance, or for a quantile too few values for its
 * interval to stay inside (0, 1), or an interval that collapsed to a point.
 */
export function hasZeroVariance(s: Statistic): boolean {
  if (s.kind !== 'quantile') return variance(s) <= 0;
  const z2 = Z_975 ** 2;
  if (s.n <= (z2 * s.nu) / (1 - s.nu) || s.n <= (z2 * (1 - s.nu)) / s.nu) return true;
  return quantileVariance(s) <= 0;
}

/** Mean of a base column; 0 without units. */
export function baseMean(s: BaseStatistic): number {
  return s.n === 0 ? 0 : s.sum / s.n;
}

/** Per-unit variance of a base column. */
export function baseVariance(s: BaseStatistic): number {
  if (s.kind === 'proportion') {
    const p = baseMean(s);
    return p * (1 - p);
  }
  if (s.n <= 1) return 0;
  return (s.sumSquares - (s.sum * s.sum) / s.n) / (s.n - 1);
}

/** Per-unit covariance of two columns measured on the same `n` units. */
export function covariance(n: number, a: BaseStatistic, b: BaseStatistic, products: number): number {
  if (n <= 1) return 0;
  // Two 0/1 columns use the population covariance, matching the Bernoulli variance used for each.
  if (a.kind === 'proportion' && b.kind === 'proportion') return products / n - (a.sum * b.sum) / (n * n);
  return (products - (a.sum * b.sum) / n) / (n - 1);
}

/** Delta-method variance of M / D given the moments of M and D. */
export function varianceOfRatio(meanM: number, varM: number, meanD: number, varD: number, covMD: number): number {
  return varM / meanD ** 2 + (varD * meanM ** 2) / meanD ** 4 - (2 * covMD * meanM) / meanD ** 3;
}

/** The (possibly CUPED-adjusted) per-unit mean that comparisons are made on. */
export function mean(s: Statistic): number {
  switch (s.kind) {
    case 'proportion':
    case 'sample_mean':
      return baseMean(s);
    case 'ratio':
      return s.denominator.sum === 0 ? 0 : s.numerator.sum / s.denominator.sum;
    case 'adjusted_mean':
      return baseMean(s.post) - s.theta * baseMean(s.pre);
    case 'adjusted_ratio':
      if (s.denominatorPost.sum === 0 || s.denominatorPre.sum === 0) return 0;
      return postRatio(s) - s.theta * preRatio(s);
    case 'quantile':
      return s.hat;
  }
}

/** The mean without any CUPED adjustment: what the variation actually measured. */
export function unadjustedMean(s: Statistic): number {
  if (s.kind === 'adjusted_mean') return baseMean(s.post);
  if (s.kind === 'adjusted_ratio') return postRatio(s);
  return mean(s);
}

/** Per-unit variance of the statistic (the variance of its mean times n). */
export function variance(s: Statistic): number {
  switch (s.kind) {
    case 'proportion':
    case 'sample_mean':
      return baseVariance(s);
    case 'ratio': {
      const meanD = baseMean(s.denominator);
      if (meanD === 0 || s.n <= 1) return 0;
      return varianceOfRatio(
        baseMean(s.numerator),
        baseVariance(s.numerator),
        meanD,
        baseVariance(s.denominator),
        covariance(s.n, s.numerator, s.denominator, s.numeratorDenominatorProducts),
      );
    }
    case 'adjusted_mean':
      if (s.n <= 1) return 0;
      return (
        baseVariance(s.post) +
        s.theta ** 2 * baseVariance(s.pre) -
        2 * s.theta * covariance(s.n, s.post, s.pre, s.postPreProducts)
      );
    case 'adjusted_ratio': {
      const g = adjustedRatioGradient(s, s.theta);
      return quadraticForm(g, adjustedRatioCovarianceMatrix(s), g);
    }
    case 'quantile': {
      // gbstats floors the variance of large samples so a tight interval never reads as none at all.
      const v = quantileVariance(s);
      return s.n < 100 ? v : Math.max(v, 1e-5);
    }
  }
}

/** Standard deviation of the statistic; 0 when its variance is not positive. */
export function stddev(s: Statistic): number {
  const v = variance(s);
  return v <= 0 ? 0 : Math.sqrt(v);
}

function postRatio(s: AdjustedRatioStatistic): number {
  return s.denominatorPost.sum === 0 ? 0 : s.numeratorPost.sum / s.denominatorPost.sum;
}

function preRatio(s: AdjustedRatioStatistic): number {
  return s.denominatorPre.sum === 0 ? 0 : s.numeratorPre.sum / s.denominatorPre.sum;
}

/**
 * Covariance matrix of the four per-unit means (numerator post, denominator post, numerator pre, denominator pre)
 * of an adjusted ratio.
 */
export function adjustedRatioCovarianceMatrix(s: AdjustedRatioStatistic): number[][] {
  const [mPost, dPost, mPre, dPre] = [s.numeratorPost, s.denominatorPost, s.numeratorPre, s.denominatorPre];
  const p = s.products;
  const cov = (a: BaseStatistic, b: BaseStatistic, products: number) => covariance(s.n, a, b, products);
  const mPostDPost = cov(mPost, dPost, p.numeratorPostDenominatorPost);
  const mPostMPre = cov(mPost, mPre, p.numeratorPostNumeratorPre);
  const mPostDPre = cov(mPost, dPre, p.numeratorPostDenominatorPre);
  const dPostMPre = cov(dPost, mPre, p.denominatorPostNumeratorPre);
  const dPostDPre = cov(dPost, dPre, p.denominatorPostDenominatorPre);
  const mPreDPre = cov(mPre, dPre, p.numeratorPreDenominatorPre);
  return [
    [baseVariance(mPost), mPostDPost, mPostMPre, mPostDPre],
    [mPostDPost, baseVariance(dPost), dPostMPre, dPostDPre],
    [mPostMPre, dPostMPre, baseVariance(mPre), mPreDPre],
    [mPostDPre, dPostDPre, mPreDPre, baseVariance(dPre)],
  ];
}

/**
 * Gradient of mPost/dPost - theta * mPre/dPre with respect to the four means: the delta method for an adjusted
 * ratio. Zero when a denominator mean is zero (the ratio is undefined there).
 */
export function adjustedRatioGradient(s: AdjustedRatioStatistic, theta: number): number[] {
  const [mPost, dPost, mPre, dPre] = [
    baseMean(s.numeratorPost),
    baseMean(s.denominatorPost),
    baseMean(s.numeratorPre),
    baseMean(s.denominatorPre),
  ];
  if (dPost === 0 || dPre === 0) return [0, 0, 0, 0];
  return [1 / dPost, -mPost / dPost ** 2, -theta / dPre, (theta * mPre) / dPre ** 2];
}

/** x' M y for small dense vectors and matrices. */
export function quadraticForm(x: number[], m: number[][], y: number[]): number {
  let total = 0;
  for (let i = 0; i < x.length; i++) for (let j = 0; j < y.length; j++) total += x[i] * m[i][j] * y[j];
  return total;
}

function sumBase(a: BaseStatistic, b: BaseStatistic, n: number): BaseStatistic {
  if (a.kind === 'proportion' && b.kind === 'proportion') return { kind: 'proportion', n, sum: a.sum + b.sum };
  return {
    kind: 'sample_mean',
    n,
    sum: a.sum + b.sum,
    sumSquares: sumSquaresOf(a) + sumSquaresOf(b),
  };
}

function sumSquaresOf(s: BaseStatistic): number {
  // A 0/1 column's squares are the values themselves.
  return s.kind === 'proportion' ? s.sum : s.sumSquares;
}

/**
 * CUPED coefficient for a mean: the regression slope of the post value on the covariate over both variations
 * pooled; 0 when either pooled column has no variance.
 */
export function adjustedMeanTheta(a: AdjustedMeanStatistic, b: AdjustedMeanStatistic): number {
  const n = a.n + b.n;
  const post = sumBase(a.post, b.post, n);
  const pre = sumBase(a.pre, b.pre, n);
  const preVariance = baseVariance(pre);
  if (preVariance === 0 || baseVariance(post) === 0) return 0;
  return covariance(n, post, pre, a.postPreProducts + b.postPreProducts) / preVariance;
}

/**
 * CUPED coefficient for a ratio: minimises the variance of the adjusted ratio, using the post/pre covariance and
 * pre variance of each variation's ratio (delta method with theta = 1), summed over both variations.
 */
export function adjustedRatioTheta(a: AdjustedRatioStatistic, b: AdjustedRatioStatistic): number {
  const parts = (s: AdjustedRatioStatistic) => {
    const g = adjustedRatioGradient(s, 1);
    const m = adjustedRatioCovarianceMatrix(s);
    const post = g.slice(0, 2);
    const pre = g.slice(2, 4);
    const preRows = m.slice(2, 4);
    return {
      covariance: quadraticForm(pre, preRows.map((row) => row.slice(0, 2)), post),
      preVariance: quadraticForm(pre, preRows.map((row) => row.slice(2, 4)), pre),
    };
  };
  const pa = parts(a);
  const pb = parts(b);
  const preVariance = pa.preVariance + pb.preVariance;
  if (preVariance === 0) return 0;
  return -(pa.covariance + pb.covariance) / preVariance;
}

/** Without adjustment: the post-period mean or ratio a CUPED statistic was built on. */
export function withoutAdjustment(s: Statistic): Statistic {
  if (s.kind === 'adjusted_mean') return s.post;
  if (s.kind === 'adjusted_ratio') {
    return {
      kind: 'ratio',
      n: s.n,
      numerator: s.numeratorPost,
      denominator: s.denominatorPost,
      numeratorDenominatorProducts: s.products.numeratorPostDenominatorPost,
    };
  }
  return s;
}

/**
 * Sets the pooled CUPED coefficient on a baseline/variation pair. When it is (numerically) zero there is nothing to
 * adjust for, and the pair falls back to the unadjusted statistics.
 */
export function withTheta(a: Statistic, b: Statistic): [Statistic, Statistic] {
  if (a.kind === 'adjusted_mean' && b.kind === 'adjusted_mean') {
    const theta = adjustedMeanTheta(a, b);
    if (theta === 0) return [withoutAdjustment(a), withoutAdjustment(b)];
    return [{ ...a, theta }, { ...b, theta }];
  }
  if (a.kind === 'adjusted_ratio' && b.kind === 'adjusted_ratio') {
    const theta = adjustedRatioTheta(a, b);
    if (Math.abs(theta) < 1e-8) return [withoutAdjustment(a), withoutAdjustment(b)];
    return [{ ...a, theta }, { ...b, theta }];
  }
  return [a, b];
}
