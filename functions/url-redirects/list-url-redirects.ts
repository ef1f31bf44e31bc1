import { endpoint } from '../../shared/api/endpoint';
import { listUrlRedirects } from '../../shared/contracts/url-redirects';
import * as urlRedirects from '../../shared/use-cases/url-redirects';

export const handler = endpoint(listUrlRedirects, urlRedirects.listUrlRedirects);
