import { endpoint } from '../../shared/api/endpoint';
import { deleteUrlRedirect } from '../../shared/contracts/url-redirects';
import * as urlRedirects from '../../shared/use-cases/url-redirects';

export const handler = endpoint(deleteUrlRedirect, urlRedirects.deleteUrlRedirect);
