import { isURLTargeted } from '@growthbook/growthbook';
import { InvalidInputError } from '../errors';
import type { UrlRedirect } from '../contracts/url-redirects';

type RedirectTarget = Pick<UrlRedirect, 'urlPattern' | 'destinationURLs'>;

const invalid = (field: string, problem: string) => new InvalidInputError(`Request body: [${field}] ${problem}`);

/**
 * Raises 400 unless every variation of the experiment has a destination (as GrowthBook checks on
 * create), and every destination given is an absolute URL: SDKs skip a whole redirect experiment
 * when one destination does not parse. An empty destination (a variation that stays) is allowed.
 */
export function assertDestinations(redirect: RedirectTarget, variationIds: string[]): void {
  const missing = variationIds.filter((id) => !redirect.destinationURLs.some((d) => d.variation === id));
  if (missing.length) {
    throw invalid('destinationURLs', `the URL redirect from ${redirect.urlPattern} needs one destination for each variation; missing: ${missing.join(', ')}`);
  }
  redirect.destinationURLs.forEach((destination, i) => {
    if (!destination.url) return;
    try {
      new URL(destination.url);
    } catch {
      throw invalid(`destinationURLs.${i}.url`, `must be an absolute URL such as https://example.com/new, not ${destination.url}`);
    }
  });
}

const matches = (url: string, pattern: string) => isURLTargeted(url, [{ type: 'simple', pattern, include: true }]);

/**
 * Raises 400 when the redirect would chain into or out of one of `others` (the redirects SDKs are
 * served), which could send visitors round in a loop, as GrowthBook refuses it.
 */
export function assertNoRedirectLoop(redirect: RedirectTarget, others: RedirectTarget[]): void {
  const origin = redirect.urlPattern;
  for (const other of others) {
    const theOther = `the one from ${other.urlPattern}`;
    if (matches(origin, other.urlPattern)) throw invalid('urlPattern', `the URL redirect from ${origin} matches the origin of ${theOther}`);
    if (other.destinationURLs.some((d) => d.url && matches(d.url, origin))) {
      throw invalid('urlPattern', `the URL redirect from ${origin} matches a destination of ${theOther}`);
    }
    if (redirect.destinationURLs.some((d) => d.url && matches(d.url, other.urlPattern))) {
      throw invalid('destinationURLs', `a destination of the URL redirect from ${origin} matches the origin of ${theOther}`);
    }
  }
}
