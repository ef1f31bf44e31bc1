import { endpoint } from '../../shared/api/endpoint';
import { openApiDocument } from '../../shared/api/openapi';
import { routes } from '../../shared/contracts/registry';
import { getOpenApiDocument } from '../../shared/contracts/system';

let document: ReturnType<typeof openApiDocument> | undefined;

export const handler = endpoint(getOpenApiDocument, async () => (document ??= openApiDocument(routes)));
