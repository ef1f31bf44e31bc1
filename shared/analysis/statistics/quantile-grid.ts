/*
 * What the SQL of a quantile metric needs from the statistics, without the statistics' packages: the
 * SQL builder runs in API functions, whose bundles carry no analysis-only package (infra/bundling.ts).
 */

/**
 * The sample sizes for which the query gives a quantile's interval (`quantile_lower_<n>`, `quantile_upper_<n>`), as
 * GrowthBook's: the analysis uses the largest below the actual count of values.
 */
export const QUANTILE_N_STARS = [
  100, 200, 400, 800, 1600, 3200, 6400, 12800, 25600, 51200, 102400, 204800, 409600, 819200, 1638400, 3276800, 6553600,
  13107200, 26214400, 52428800,
];

/** The standard normal's 97.5% point (`normalQuantile(0.975, 0, 1)`; a unit test checks they agree). */
export const Z_975 = 1.959963984540054;

/** The levels of a quantile's interval bounds for `nStar` values (GrowthBook's order-statistic method). */
export function quantileLevels(level: number, nStar: number): [number, number] {
  const half = Z_975 * Math.sqrt((level * (1 - level)) / nStar);
  return [Math.max(level - half, 1e-8), Math.min(level + half, 0.99999999)];
}
