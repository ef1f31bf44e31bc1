import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OpenApiDocument } from './openapi';

/**
 * The name of the prebuilt document next to a bundle. infra/bundling.ts generates it from the registry
 * and writes it into every bundle that imports this module, so no function loads the registry (every
 * contract) or runs the JSON Schema conversion at cold start.
 */
export const openApiDocumentFile = 'openapi.json';

// Lambda's task root is the bundle's own folder.
let source = (): OpenApiDocument =>
  JSON.parse(readFileSync(join(process.env.LAMBDA_TASK_ROOT ?? '.', openApiDocumentFile), 'utf8'));
let document: OpenApiDocument | undefined;

/** The OpenAPI document of this API, read once per container from the file shipped with the bundle. */
export function openApiDocument(): OpenApiDocument {
  return (document ??= source());
}

/**
 * Replaces where the document comes from, for a process that runs handlers from source rather than
 * from bundles (the local server), where there is no prebuilt file: it generates the document instead.
 */
export function setOpenApiDocumentSource(next: () => OpenApiDocument): void {
  source = next;
  document = undefined;
}
