import { endpoint } from '../../shared/api/endpoint';
import { openApiDocument } from '../../shared/api/openapi-document';
import { getOpenApiDocument } from '../../shared/contracts/system';

export const handler = endpoint(getOpenApiDocument, async () => openApiDocument());
