import { endpoint } from '../../shared/api/endpoint';
import { getUrlRedirect } from '../../shared/contracts/url-redirects';
import { urlRedirects } from '../../shared/store/url-redirects';

export const handler = endpoint(getUrlRedirect, async ({ params, auth }) => ({ urlRedirect: await urlRedirects.get(auth.orgId, params.id) }));
