import { endpoint } from '../../shared/api/endpoint';
import { listUrlRedirects } from '../../shared/contracts/url-redirects';
import { urlRedirects } from '../../shared/store/url-redirects';

export const handler = endpoint(listUrlRedirects, async ({ query, auth }) => {
  // One consistent Query of the organization's redirects: a redirect just created is listed.
  const all = await urlRedirects.all(auth.orgId);
  return { urlRedirects: query.experimentId ? all.filter((redirect) => redirect.experiment === query.experimentId) : all };
});
