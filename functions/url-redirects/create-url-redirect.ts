import { endpoint } from '../../shared/api/endpoint';
import { createUrlRedirect } from '../../shared/contracts/url-redirects';
import { assertDestinations, assertNoRedirectLoop } from '../../shared/domain/url-redirects';
import { newId } from '../../shared/ids';
import { assertCan } from '../../shared/permissions';
import { addUrlRedirect, servedRedirects } from '../../shared/store/url-redirects';

export const handler = endpoint(createUrlRedirect, async ({ body, auth }) => {
  const others = await servedRedirects(auth.orgId);
  const urlRedirect = await addUrlRedirect(auth.orgId, body.experiment, (experiment) => {
    assertCan(auth, createUrlRedirect.permission, experiment.project ? [experiment.project] : []);
    const redirect = {
      id: newId('url_'),
      experiment: experiment.id,
      urlPattern: body.urlPattern,
      destinationURLs: body.destinationURLs,
      persistQueryString: body.persistQueryString ?? false,
    };
    assertDestinations(redirect, experiment.variations.map((variation) => variation.variationId));
    assertNoRedirectLoop(redirect, others);
    return redirect;
  });
  return { urlRedirect };
});
