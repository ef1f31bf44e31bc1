import { endpoint } from '../../shared/api/endpoint';
import { openApiDocumentText } from '../../shared/api/openapi-document';
import { openApiYaml } from '../../shared/api/openapi-yaml';
import { EncodedResponse } from '../../shared/api/responses';
import { getOpenApiYaml } from '../../shared/contracts/system';

// The same document as openapi.json, as YAML: prebuilt at bundle time like the JSON.
export const handler = endpoint(getOpenApiYaml, async () =>
  new EncodedResponse(200, openApiDocumentText('yaml', openApiYaml), { 'content-type': 'text/yaml; charset=utf-8', 'cache-control': 'max-age=3600' }),
);
