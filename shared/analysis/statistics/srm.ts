import { InvalidInputError } from '../../errors';
import { chisquareSf } from './distributions';

/**
 * Sample ratio mismatch: the chi-square goodness-of-fit p-value of the users per variation against the expected
 * weights (normalised to sum to 1). Variations with a weight of 0 or less are left out of the statistic; with no
 * users at all there is nothing to test and the answer is 1.
 */
export function srmPValue(users: number[], weights: number[]): number {
  if (users.length !== weights.length) throw new InvalidInputError('SRM needs one weight per variation');
  const total = users.reduce((sum, u) => sum + u, 0);
  if (!total) return 1;
  const totalWeight = weights.reduce((sum, w) => sum + w, 0);
  let statistic = 0;
  users.forEach((observed, i) => {
    if (weights[i] <= 0) return;
    const expected = (weights[i] / totalWeight) * total;
    statistic += (observed - expected) ** 2 / expected;
  });
  return chisquareSf(statistic, users.length - 1);
}
