import { endpoint } from '../../shared/api/endpoint';
import { createUrlRedirect } from '../../shared/contracts/url-redirects';
import * as urlRedirects from '../../shared/use-cases/url-redirects';

export const handler = endpoint(createUrlRedirect, urlRedirects.createUrlRedirect);
