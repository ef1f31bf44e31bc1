import * as z from './zod';
import { defineEndpoint } from './spec';
import { factMetricImportBody } from './fact-metrics';
import { factTableCreateBody, factTableFilterCreateBody } from './fact-tables';

const id = z.string().check(z.trim(), z.minLength(1), z.maxLength(256));
/** How many items one import may carry in all; far above real imports, far below the 2 MB body limit's reach. */
export const MAX_IMPORT_ITEMS = 2000;

const bulkImportBody = z
  .strictObject({
    factTables: z._default(z.array(z.strictObject({ id, data: factTableCreateBody })), []),
    factTableFilters: z._default(
      z.array(z.strictObject({ factTableId: id, id, data: factTableFilterCreateBody })),
      [],
    ),
    factMetrics: z._default(z.array(z.strictObject({ id, data: factMetricImportBody })), []),
  })
  .check(
    z.refine(
      (body) => body.factTables.length + body.factTableFilters.length + body.factMetrics.length <= MAX_IMPORT_ITEMS,
      { message: `an import holds at most ${MAX_IMPORT_ITEMS} items` },
    ),
  );
export type BulkImportFacts = z.infer<typeof bulkImportBody>;

export const postBulkImportFacts = defineEndpoint({
  operationId: 'postBulkImportFacts',
  method: 'POST',
  path: '/bulk-import/facts',
  summary: 'Create or update fact tables, their filters and fact metrics by id',
  tag: 'fact-tables',
  permission: 'manageFactTables',
  projectScoped: true,
  body: bulkImportBody,
  response: z.object({
    success: z.boolean(),
    factTablesAdded: z.int(),
    factTablesUpdated: z.int(),
    factTableFiltersAdded: z.int(),
    factTableFiltersUpdated: z.int(),
    factMetricsAdded: z.int(),
    factMetricsUpdated: z.int(),
  }),
});

export const bulkImportEndpoints = [postBulkImportFacts];
