import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OpenApiDocument } from './openapi';

/**
 * The prebuilt document's files next to a bundle, by format. infra/bundling.ts generates them from the
 * registry and writes them into every bundle that imports this module, so no function loads the
 * registry (every contract), runs the JSON Schema conversion or serialises the document at cold start.
 */
export const openApiDocumentFiles = { json: 'openapi.json', yaml: 'openapi.yaml' } as const;
export type OpenApiFormat = keyof typeof openApiDocumentFiles;

// Set by a process that runs handlers from source (the local server): there is no prebuilt file there.
let generate: (() => OpenApiDocument) | undefined;
let document: OpenApiDocument | undefined;
const texts: Partial<Record<OpenApiFormat, string>> = {};

/**
 * The OpenAPI document as text, served as it is: in a bundle, the file shipped with it, read once per
 * container (Lambda's task root is the bundle's own folder); otherwise `serialize` of the generated document.
 */
export function openApiDocumentText(format: OpenApiFormat, serialize: (document: OpenApiDocument) => string): string {
  texts[format] ??= generate
    ? serialize((document ??= generate()))
    : readFileSync(join(process.env.LAMBDA_TASK_ROOT ?? '.', openApiDocumentFiles[format]), 'utf8');
  return texts[format];
}

/**
 * Replaces where the document comes from, for a process that runs handlers from source rather than
 * from bundles (the local server), where there is no prebuilt file: it generates the document instead.
 */
export function setOpenApiDocumentSource(next: () => OpenApiDocument): void {
  generate = next;
  document = undefined;
  for (const format of Object.keys(texts) as OpenApiFormat[]) delete texts[format];
}
