import { endpoint } from '../../shared/api/endpoint';
import { openApiDocumentText } from '../../shared/api/openapi-document';
import { EncodedResponse, jsonHeaders } from '../../shared/api/responses';
import { getOpenApiDocument } from '../../shared/contracts/system';

// The prebuilt JSON as it is: parsing and serialising 600 KB again would double this function's cold start.
export const handler = endpoint(getOpenApiDocument, async () =>
  new EncodedResponse(200, openApiDocumentText('json', (document) => JSON.stringify(document)), jsonHeaders),
);
