import { endpoint } from '../../shared/api/endpoint';
import { docsPageHeaders, docsPageHtml } from '../../shared/api/docs-page';
import { EncodedResponse } from '../../shared/api/responses';
import { getApiDocs } from '../../shared/contracts/system';

export const handler = endpoint(getApiDocs, async () => new EncodedResponse(200, docsPageHtml, docsPageHeaders));
