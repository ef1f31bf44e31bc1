import { stringify } from 'yaml';
import type { OpenApiDocument } from './openapi';

/** The OpenAPI document as YAML: the same document as openapi.json, without YAML aliases (not every client reads them). */
export const openApiYaml = (document: OpenApiDocument) => stringify(document, { aliasDuplicateObjects: false });
