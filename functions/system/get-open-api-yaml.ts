import { stringify } from 'yaml';
import { endpoint } from '../../shared/api/endpoint';
import { openApiDocument } from '../../shared/api/openapi-document';
import { EncodedResponse } from '../../shared/api/responses';
import { getOpenApiYaml } from '../../shared/contracts/system';

let text: string | undefined;

// The same document as openapi.json, only serialized as YAML.
export const handler = endpoint(getOpenApiYaml, async () => {
  text ??= stringify(openApiDocument(), { aliasDuplicateObjects: false });
  return new EncodedResponse(200, text, { 'content-type': 'text/yaml; charset=utf-8', 'cache-control': 'max-age=3600' });
});
