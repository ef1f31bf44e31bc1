// The only file that touches distribution functions: every cdf, pdf and quantile comes from stdlib.
import tCdf from '@stdlib/stats-base-dists-t-cdf';
import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import normalCdf from '@stdlib/stats-base-dists-normal-cdf';
import normalPdf from '@stdlib/stats-base-dists-normal-pdf';
import normalQuantile from '@stdlib/stats-base-dists-normal-quantile';
import chisquareCdf from '@stdlib/stats-base-dists-chisquare-cdf';

export { tCdf, tQuantile, normalCdf, normalPdf, normalQuantile };

/** Upper tail P(X > x) of a chi-square distribution with `k` degrees of freedom. */
export function chisquareSf(x: number, k: number): number {
  return 1 - chisquareCdf(x, k);
}

/** P(X > 0) for X ~ Normal(mean, sd), computed as P(-X < 0) so no precision is lost in `1 - cdf`. */
export function normalProbabilityPositive(mean: number, sd: number): number {
  return normalCdf(0, -mean, sd);
}
