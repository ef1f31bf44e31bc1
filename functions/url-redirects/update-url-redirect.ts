import { endpoint } from '../../shared/api/endpoint';
import { startEarly } from '../../shared/concurrency';
import { updateUrlRedirect } from '../../shared/contracts/url-redirects';
import { assertDestinations, assertNoRedirectLoop } from '../../shared/domain/url-redirects';
import { assertCan } from '../../shared/permissions';
import { changeUrlRedirect, servedRedirects } from '../../shared/store/url-redirects';

export const handler = endpoint(updateUrlRedirect, async ({ params, body, auth }) => {
  // Only a new pattern or destination can make a loop; the other redirects are read alongside this one.
  const loopCheck = body.urlPattern !== undefined || body.destinationURLs !== undefined;
  const others = loopCheck ? startEarly(servedRedirects(auth.orgId, params.id)) : undefined;
  const urlRedirect = await changeUrlRedirect(auth.orgId, params.id, async (current, experiment) => {
    assertCan(auth, updateUrlRedirect.permission, experiment.project ? [experiment.project] : []);
    const next = { ...current, ...body };
    if (body.destinationURLs) assertDestinations(next, experiment.variations.map((variation) => variation.variationId));
    if (others) assertNoRedirectLoop(next, await others);
    return next;
  });
  return { urlRedirect };
});
