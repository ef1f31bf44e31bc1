import { endpoint } from '../../shared/api/endpoint';
import { updateUrlRedirect } from '../../shared/contracts/url-redirects';
import { assertDestinations, assertNoRedirectLoop } from '../../shared/domain/url-redirects';
import { assertCan } from '../../shared/permissions';
import { changeUrlRedirect, servedRedirects } from '../../shared/store/url-redirects';

export const handler = endpoint(updateUrlRedirect, async ({ params, body, auth }) => {
  const others = await servedRedirects(auth.orgId, params.id);
  const urlRedirect = await changeUrlRedirect(auth.orgId, params.id, (current, experiment) => {
    assertCan(auth, updateUrlRedirect.permission, experiment.project ? [experiment.project] : []);
    const next = { ...current, ...body };
    if (body.destinationURLs) assertDestinations(next, experiment.variations.map((variation) => variation.variationId));
    if (body.urlPattern !== undefined || body.destinationURLs) assertNoRedirectLoop(next, others);
    return next;
  });
  return { urlRedirect };
});
